// Owns one OpenSSL EVP_MD_CTX: a SHA-256 state, which for the HMAC pads (key ⊕ ipad, key ⊕ opad) is key-equivalent
// (wire-format.md §1). OpenSSL's SHA-256 provider cleanses its state when the context is freed.
using System.Runtime.InteropServices;

namespace Encryption.Custom.Crypto.OpenSsl;

/// <summary>An EVP_MD_CTX, freed (and cleansed by OpenSSL) on dispose or, as a safety net, on finalization.</summary>
internal sealed class SafeEvpMdCtxHandle : SafeHandle
{
    public SafeEvpMdCtxHandle()
        : base(invalidHandleValue: 0, ownsHandle: true)
    {
    }

    public override bool IsInvalid => handle == 0;

    /// <summary>Allocates an empty digest context.</summary>
    /// <exception cref="System.Security.Cryptography.CryptographicException">OpenSSL could not allocate it.</exception>
    public static SafeEvpMdCtxHandle Create()
    {
        var result = new SafeEvpMdCtxHandle();
        nint ctx = LibCrypto.EVP_MD_CTX_new();
        if (ctx == 0)
        {
            AeadErrors.ThrowNativeAllocationFailure();
        }

        result.SetHandle(ctx);
        return result;
    }

    protected override bool ReleaseHandle()
    {
        LibCrypto.EVP_MD_CTX_free(handle);
        return true;
    }
}
