// AES-256-CBC (wire-format.md §1: C = AES-256-CBC(encKey, IV, PKCS#7(plaintext))) over one reused EVP_CIPHER_CTX.
// The context is keyed once; each message only resets the IV (EVP_CipherInit_ex2 with cipher and key NULL, enc -1),
// which keeps the expanded key schedule. Padding is off: the AEAD core pads and unpads by hand.
// The key schedule lives in the native heap until Dispose, where EVP_CIPHER_CTX_free cleanses it.
using System.Diagnostics;
using Encryption.Custom.Crypto;

namespace Encryption.Custom.Native.OpenSsl;

/// <summary>One keyed AES-256-CBC direction (encrypt or decrypt) whose IV is reset per message.</summary>
internal sealed unsafe class OpenSslCbcCipher : CbcCipher
{
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly SafeEvpCipherCtxHandle _handle;
    private readonly nint _ctx;

    private OpenSslCbcCipher(SafeEvpCipherCtxHandle handle)
    {
        _handle = handle;
        _ctx = handle.DangerousGetHandle();
    }

    /// <summary>Builds a cipher keyed with <paramref name="key"/> (32 bytes); the caller wipes the key.</summary>
    public static OpenSslCbcCipher Create(ReadOnlySpan<byte> key, bool encrypting)
    {
        if (key.Length != AeadCellLayout.KeySize)
        {
            AeadErrors.ThrowWrongKeySize(nameof(key));
        }

        SafeEvpCipherCtxHandle handle = SafeEvpCipherCtxHandle.Create();
        try
        {
            nint ctx = handle.DangerousGetHandle();
            fixed (byte* keyPointer = key)
            {
                Check(LibCrypto.EVP_CipherInit_ex2(ctx, LibCrypto.EVP_aes_256_cbc(), keyPointer, null, encrypting ? 1 : 0, 0));
            }

            Check(LibCrypto.EVP_CIPHER_CTX_set_padding(ctx, 0));
            return new OpenSslCbcCipher(handle);
        }
        catch
        {
            handle.Dispose();
            throw;
        }
    }

    /// <summary>Starts a new message: keeps the key schedule, replaces the chaining value with <paramref name="iv"/>.</summary>
    public override void Reset(ReadOnlySpan<byte> iv)
    {
        fixed (byte* ivPointer = iv)
        {
            Check(LibCrypto.EVP_CipherInit_ex2Short(_ctx, 0, null, ivPointer, -1, 0));
        }
    }

    /// <summary>Transforms whole blocks, continuing the chain; <paramref name="output"/> is exactly as long as <paramref name="input"/>.</summary>
    public override void Update(ReadOnlySpan<byte> input, Span<byte> output)
    {
        if (input.IsEmpty)
        {
            return;
        }

        int written;
        fixed (byte* inputPointer = input)
        fixed (byte* outputPointer = output)
        {
            Check(input.Length <= LibCrypto.ShortCallLimit
                ? LibCrypto.EVP_CipherUpdateShort(_ctx, outputPointer, &written, inputPointer, input.Length)
                : LibCrypto.EVP_CipherUpdate(_ctx, outputPointer, &written, inputPointer, input.Length));
        }

        // With padding off and whole blocks in, OpenSSL holds nothing back; anything else is a broken invariant.
        if (written != input.Length)
        {
            AeadErrors.ThrowCipherFailure();
        }
    }

    public override void Dispose() => _handle.Dispose();

    private static void Check(int result)
    {
        if (result != 1)
        {
            // Leave no stale entries in this thread's OpenSSL error queue for .NET's own OpenSSL shim to misread.
            LibCrypto.ERR_clear_error();
            AeadErrors.ThrowCipherFailure();
        }
    }
}
