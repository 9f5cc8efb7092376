namespace Encryption.Custom;

/// <summary>
/// What an encryption container with a <see cref="ContainerEncryptionPolicy"/> does with plaintext in the policy's
/// paths: the three steps of rolling encryption out on a live container (docs/policy.md).
/// </summary>
public enum PlaintextPolicy
{
    /// <summary>
    /// The default: every write encrypts the policy's paths, and a document read through the container whose
    /// policy path holds a non-null plaintext value (or that lacks <c>_ei</c> while a policy path is present) fails
    /// with <see cref="EncryptionErrorKind.PlaintextForbidden"/>.
    /// </summary>
    WriteEncryptedForbidPlaintext = 0,

    /// <summary>Every write encrypts the policy's paths; documents written earlier in plaintext still read.</summary>
    WriteEncryptedReadBoth = 1,

    /// <summary>
    /// Writes are left as requested (plaintext unless a request asks for encryption); reads accept both. The first
    /// step: deploy readers that can decrypt before any writer encrypts.
    /// </summary>
    WritePlaintextReadBoth = 2,
}
