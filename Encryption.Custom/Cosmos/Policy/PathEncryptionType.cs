namespace Encryption.Custom;

/// <summary>
/// How a <see cref="ContainerEncryptionPolicy"/> encrypts one path (<see cref="EncryptionPolicyIncludedPath.EncryptionType"/>).
/// Both produce the same format 3 values, which every reader decrypts alike; they differ only in how the IV is chosen
/// (docs/queries.md).
/// </summary>
public enum PathEncryptionType
{
    /// <summary>
    /// The default: a fresh random IV per value, so equal values give different ciphertexts and reveal nothing; the
    /// service cannot compare them, so queries cannot filter on the path.
    /// </summary>
    Randomized = 0,

    /// <summary>
    /// The IV is derived from the key, the path and the value, so equal values in this path give equal ciphertexts:
    /// queries can test equality (<c>=</c>, <c>!=</c>, <c>IN</c>), and anyone who sees the stored documents learns
    /// which documents share a value in this path, and how often each value occurs. Strings, numbers and booleans only.
    /// </summary>
    Deterministic = 1,
}
