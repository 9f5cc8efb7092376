// Chooses how AEAD_AES_256_CBC_HMAC_SHA256 (wire-format.md §1) reaches AES-CBC and HMAC-SHA256:
//   OpenSSL 3 libcrypto directly (Linux), or the portable BCL backend everywhere else.

namespace Encryption.Custom.Crypto;

/// <summary>A factory of keyed <see cref="AeadContext"/>s: the seam that picks the cryptographic implementation.</summary>
internal abstract class AeadBackend
{
    /// <summary>The native OpenSSL 3 backend when libcrypto 3 can be loaded, otherwise the managed one.</summary>
    public static AeadBackend Default { get; } = OpenSslAeadBackend.IsSupported ? OpenSslAeadBackend.Instance : ManagedAeadBackend.Instance;

    /// <summary>A short name for diagnostics and test output.</summary>
    public abstract string Name { get; }

    /// <summary>Creates an unkeyed context that keys itself from <paramref name="keySource"/> on first use.</summary>
    public abstract AeadContext CreateContext(AeadKeySource keySource);

    /// <inheritdoc/>
    public override string ToString() => Name;
}
