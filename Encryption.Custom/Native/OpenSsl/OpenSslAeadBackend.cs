// The native AEAD backend (wire-format.md §1 over OpenSSL 3 libcrypto), used when libcrypto.so.3 loads.
using Encryption.Custom.Crypto;

namespace Encryption.Custom.Native.OpenSsl;

/// <summary>Makes libcrypto-backed primitives; available only where <see cref="LibCrypto.IsAvailable"/>.</summary>
internal sealed class OpenSslAeadBackend : AeadBackend
{
    private OpenSslAeadBackend()
    {
    }

    /// <summary>Whether libcrypto 3 can be loaded in this process.</summary>
    public static bool IsSupported => LibCrypto.IsAvailable;

    /// <summary>The backend; creating contexts throws <see cref="PlatformNotSupportedException"/> when not <see cref="IsSupported"/>.</summary>
    public static OpenSslAeadBackend Instance { get; } = new();

    public override string Name => "OpenSsl";

    /// <exception cref="PlatformNotSupportedException">libcrypto 3 cannot be loaded.</exception>
    public override AeadContext CreateContext(AeadKeySource keySource)
    {
        if (!IsSupported)
        {
            throw new PlatformNotSupportedException("OpenSSL 3 libcrypto could not be loaded; use the managed AEAD backend.");
        }

        return base.CreateContext(keySource);
    }

    public override CbcCipher CreateCbcCipher(ReadOnlySpan<byte> key, bool encrypting) => OpenSslCbcCipher.Create(key, encrypting);

    public override HmacSha256 CreateHmac(ReadOnlySpan<byte> key) => OpenSslHmacSha256.Create(key);
}
