namespace Encryption.Custom;

/// <summary>
/// One property that a <see cref="ContainerEncryptionPolicy"/> encrypts: a top-level path such as <c>/ssn</c>.
/// Immutable. (A separate type rather than a string so that per-path settings can be added later.)
/// </summary>
public sealed class EncryptionPolicyIncludedPath
{
    /// <summary>Creates the entry; the path is validated by the policy that lists it.</summary>
    /// <param name="path">The top-level path, <c>/</c> followed by the property name exactly as stored (case matters).</param>
    /// <exception cref="ArgumentNullException"><paramref name="path"/> is null.</exception>
    public EncryptionPolicyIncludedPath(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        Path = path;
    }

    /// <summary>The top-level path, for example <c>/ssn</c>.</summary>
    public string Path { get; }
}
