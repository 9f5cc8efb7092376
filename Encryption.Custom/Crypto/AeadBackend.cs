// Chooses how AEAD_AES_256_CBC_HMAC_SHA256 (wire-format.md §1) reaches AES-CBC and HMAC-SHA256:
//   OpenSSL 3 libcrypto directly (Linux), or the portable BCL backend everywhere else.
// A backend only makes the two keyed primitives; the one AeadContext keys them lazily and owns their lifetime.

using Encryption.Custom.Crypto.Managed;
using Encryption.Custom.Native.OpenSsl;

namespace Encryption.Custom.Crypto;

/// <summary>A factory of keyed primitives: the seam that picks the cryptographic implementation.</summary>
internal abstract class AeadBackend
{
    /// <summary>The native OpenSSL 3 backend when libcrypto 3 can be loaded, otherwise the managed one.</summary>
    public static AeadBackend Default { get; } = OpenSslAeadBackend.IsSupported ? OpenSslAeadBackend.Instance : ManagedAeadBackend.Instance;

    /// <summary>A short name for diagnostics and test output.</summary>
    public abstract string Name { get; }

    /// <summary>Creates an unkeyed context that keys itself from <paramref name="keySource"/> on first use.</summary>
    /// <exception cref="PlatformNotSupportedException">The backend cannot run in this process.</exception>
    public virtual AeadContext CreateContext(AeadKeySource keySource) => new(this, keySource);

    /// <summary>Builds an AES-256-CBC direction keyed with <paramref name="key"/> (32 bytes); the caller wipes the key.</summary>
    public abstract CbcCipher CreateCbcCipher(ReadOnlySpan<byte> key, bool encrypting);

    /// <summary>Builds an HMAC-SHA256 keyed with <paramref name="key"/> (32 bytes); the caller wipes the key.</summary>
    public abstract HmacSha256 CreateHmac(ReadOnlySpan<byte> key);

    /// <inheritdoc/>
    public override string ToString() => Name;
}
