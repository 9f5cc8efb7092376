namespace Encryption.Custom;

/// <summary>
/// One value that a <see cref="ContainerEncryptionPolicy"/> encrypts: a top-level path such as <c>/ssn</c>, or a
/// nested selector such as <c>/address/city</c> or <c>/cards/[]/number</c> (<c>[]</c>: every element of an array;
/// documents are then written in format 101, which Microsoft's package cannot read; docs/policy.md, "Selectors").
/// Immutable; settings other than the path have defaults (<see cref="EncryptionType"/>: randomized).
/// </summary>
public sealed class EncryptionPolicyIncludedPath
{
    /// <summary>Creates the entry; the path is validated by the policy that lists it.</summary>
    /// <param name="path">The path: <c>/</c>-separated property names exactly as stored (case matters), and <c>[]</c> for every element of an array.</param>
    /// <exception cref="ArgumentNullException"><paramref name="path"/> is null.</exception>
    public EncryptionPolicyIncludedPath(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        Path = path;
    }

    /// <summary>The path, for example <c>/ssn</c> or <c>/cards/[]/number</c>.</summary>
    public string Path { get; }

    /// <summary>
    /// How the path is encrypted. Default <see cref="PathEncryptionType.Randomized"/>;
    /// <see cref="PathEncryptionType.Deterministic"/> allows equality queries and reveals equality (docs/queries.md).
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not defined.</exception>
    public PathEncryptionType EncryptionType
    {
        get;
        init
        {
            if (!Enum.IsDefined(value))
            {
                throw new ArgumentOutOfRangeException(nameof(value), value, "Unknown path encryption type.");
            }

            field = value;
        }
    }

    /// <summary>
    /// Queries beyond equality the path serves through query tokens: a <see cref="RangeQueryOptions"/> subtype or
    /// <see cref="PrefixQueryOptions"/>. Default <see langword="null"/>: none. Top-level paths only; documents of a
    /// policy with tokens are written in format 101 (docs/queries.md, "Range and prefix queries", with what tokens reveal).
    /// </summary>
    public QueryTokenOptions? Queries { get; init; }
}
