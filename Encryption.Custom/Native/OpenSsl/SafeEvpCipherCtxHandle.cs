// Owns one OpenSSL EVP_CIPHER_CTX (an AES-256-CBC key schedule in the native heap, wire-format.md §1).
// EVP_CIPHER_CTX_free cleanses the key schedule before freeing it.
using System.Runtime.InteropServices;
using Encryption.Custom.Crypto;

namespace Encryption.Custom.Native.OpenSsl;

/// <summary>An EVP_CIPHER_CTX, freed (and cleansed by OpenSSL) on dispose or, as a safety net, on finalization.</summary>
internal sealed class SafeEvpCipherCtxHandle : SafeHandle
{
    public SafeEvpCipherCtxHandle()
        : base(invalidHandleValue: 0, ownsHandle: true)
    {
    }

    public override bool IsInvalid => handle == 0;

    /// <summary>Allocates an empty cipher context.</summary>
    /// <exception cref="System.Security.Cryptography.CryptographicException">OpenSSL could not allocate it.</exception>
    public static SafeEvpCipherCtxHandle Create()
    {
        var result = new SafeEvpCipherCtxHandle();
        nint ctx = LibCrypto.EVP_CIPHER_CTX_new();
        if (ctx == 0)
        {
            AeadErrors.ThrowNativeAllocationFailure();
        }

        result.SetHandle(ctx);
        return result;
    }

    protected override bool ReleaseHandle()
    {
        LibCrypto.EVP_CIPHER_CTX_free(handle);
        return true;
    }
}
