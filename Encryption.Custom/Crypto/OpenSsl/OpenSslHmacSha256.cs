// HMAC-SHA256 (RFC 2104; wire-format.md §1 uses it for the tag and the deterministic IV) over precomputed SHA-256
// states: inner = SHA-256 after (key ⊕ ipad), outer = SHA-256 after (key ⊕ opad). A message clones the inner state
// (EVP_MD_CTX_copy_ex), hashes, then clones the outer state and hashes the inner digest: no re-keying per message.
// Both pad states are key-equivalent and live in the native heap until Dispose; OpenSSL cleanses them when freed.
using System.Security.Cryptography;

namespace Encryption.Custom.Crypto.OpenSsl;

/// <summary>A keyed HMAC-SHA256 whose key pads are hashed once; one message at a time.</summary>
internal sealed unsafe class OpenSslHmacSha256 : IDisposable
{
    private const int Sha256BlockSize = 64;
    private const int Sha256Size = 32;
    private const byte InnerPad = 0x36;
    private const byte OuterPad = 0x5c;

    private readonly SafeEvpMdCtxHandle _innerHandle;
    private readonly SafeEvpMdCtxHandle _outerHandle;
    private readonly SafeEvpMdCtxHandle _workHandle;
    private readonly nint _inner;
    private readonly nint _outer;
    private readonly nint _work;

    private OpenSslHmacSha256(SafeEvpMdCtxHandle inner, SafeEvpMdCtxHandle outer, SafeEvpMdCtxHandle work)
    {
        _innerHandle = inner;
        _outerHandle = outer;
        _workHandle = work;
        _inner = inner.DangerousGetHandle();
        _outer = outer.DangerousGetHandle();
        _work = work.DangerousGetHandle();
    }

    /// <summary>Builds an HMAC keyed with one sub-key of <paramref name="keySource"/>.</summary>
    /// <exception cref="ObjectDisposedException">The key source has released its key material.</exception>
    /// <exception cref="CryptographicException">OpenSSL failed to hash the key pads.</exception>
    public static OpenSslHmacSha256 Create(AeadKeySource keySource, AeadSubKey subKey)
    {
        OpenSslHmacSha256? result = null;
        keySource.UseSubKey(subKey, static (scoped ReadOnlySpan<byte> key, ref OpenSslHmacSha256? r) => r = Create(key), ref result);
        return result!;
    }

    /// <summary>Builds an HMAC keyed with <paramref name="key"/> (32 bytes); the caller wipes the key.</summary>
    public static OpenSslHmacSha256 Create(ReadOnlySpan<byte> key)
    {
        if (key.Length != AeadCellLayout.KeySize)
        {
            AeadErrors.ThrowWrongKeySize(nameof(key));
        }

        SafeEvpMdCtxHandle? inner = null;
        SafeEvpMdCtxHandle? outer = null;
        SafeEvpMdCtxHandle? work = null;
        Span<byte> pad = stackalloc byte[Sha256BlockSize];
        try
        {
            inner = SafeEvpMdCtxHandle.Create();
            outer = SafeEvpMdCtxHandle.Create();
            work = SafeEvpMdCtxHandle.Create();
            AbsorbPad(inner.DangerousGetHandle(), key, InnerPad, pad);
            AbsorbPad(outer.DangerousGetHandle(), key, OuterPad, pad);
            var result = new OpenSslHmacSha256(inner, outer, work);
            inner = outer = work = null;
            return result;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(pad);
            inner?.Dispose();
            outer?.Dispose();
            work?.Dispose();
        }
    }

    /// <summary>Starts a message from the keyed inner state.</summary>
    public void Begin() => Check(LibCrypto.EVP_MD_CTX_copy_ex(_work, _inner));

    /// <summary>Hashes more of the message.</summary>
    public void Append(ReadOnlySpan<byte> data)
    {
        if (data.IsEmpty)
        {
            return;
        }

        fixed (byte* dataPointer = data)
        {
            Check(LibCrypto.EVP_DigestUpdate(_work, dataPointer, (nuint)data.Length));
        }
    }

    /// <summary>Ends the message and writes its 32-byte MAC to <paramref name="mac"/>.</summary>
    public void Finish(Span<byte> mac)
    {
        Span<byte> innerDigest = stackalloc byte[Sha256Size];
        uint size;
        fixed (byte* innerPointer = innerDigest)
        fixed (byte* macPointer = mac)
        {
            Check(LibCrypto.EVP_DigestFinal_ex(_work, innerPointer, &size));
            Check(LibCrypto.EVP_MD_CTX_copy_ex(_work, _outer));
            Check(LibCrypto.EVP_DigestUpdate(_work, innerPointer, Sha256Size));
            Check(LibCrypto.EVP_DigestFinal_ex(_work, macPointer, &size));
        }
    }

    public void Dispose()
    {
        _workHandle.Dispose();
        _outerHandle.Dispose();
        _innerHandle.Dispose();
    }

    private static void AbsorbPad(nint ctx, ReadOnlySpan<byte> key, byte padByte, Span<byte> pad)
    {
        // A 32-byte key is shorter than the 64-byte block, so RFC 2104 zero-extends it before the XOR.
        pad.Fill(padByte);
        for (int i = 0; i < key.Length; i++)
        {
            pad[i] ^= key[i];
        }

        Check(LibCrypto.EVP_DigestInit_ex(ctx, LibCrypto.EVP_sha256(), 0));
        fixed (byte* padPointer = pad)
        {
            Check(LibCrypto.EVP_DigestUpdate(ctx, padPointer, Sha256BlockSize));
        }
    }

    private static void Check(int result)
    {
        if (result != 1)
        {
            LibCrypto.ERR_clear_error();
            AeadErrors.ThrowCipherFailure();
        }
    }
}
