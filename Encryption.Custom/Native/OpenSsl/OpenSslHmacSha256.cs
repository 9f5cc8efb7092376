// HMAC-SHA256 (RFC 2104; wire-format.md §1 uses it for the tag and the deterministic IV) over precomputed SHA-256
// states: inner = SHA-256 after (key ⊕ ipad), outer = SHA-256 after (key ⊕ opad). A message copies the inner state
// (a 112-byte memcpy), hashes, then copies the outer state and hashes the inner digest: no re-keying, no allocation
// and no provider dispatch per message (about 2.5× faster than cloning EVP_MD_CTX states on this machine).
// Both pad states are key-equivalent; they live in our own native block (SafeSha256StatesHandle), which is zeroed
// when freed on Dispose.
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using Encryption.Custom.Crypto;

namespace Encryption.Custom.Native.OpenSsl;

/// <summary>A keyed HMAC-SHA256 whose key pads are hashed once; one message at a time.</summary>
internal sealed unsafe class OpenSslHmacSha256 : HmacSha256
{
    private const int Sha256BlockSize = 64;
    private const int Sha256Size = 32;
    private const int Sha256StateSize = 112;
    private const byte InnerPad = 0x36;
    private const byte OuterPad = 0x5c;

    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly SafeSha256StatesHandle _states;
    private readonly byte* _inner;
    private readonly byte* _outer;
    private readonly byte* _work;

    private OpenSslHmacSha256(SafeSha256StatesHandle states)
    {
        _states = states;
        _inner = states.State(0);
        _outer = states.State(1);
        _work = states.State(2);
    }

    /// <summary>Builds an HMAC keyed with <paramref name="key"/> (32 bytes); the caller wipes the key.</summary>
    public static OpenSslHmacSha256 Create(ReadOnlySpan<byte> key)
    {
        if (key.Length != AeadCellLayout.KeySize)
        {
            AeadErrors.ThrowWrongKeySize(nameof(key));
        }

        SafeSha256StatesHandle states = SafeSha256StatesHandle.Create();
        Span<byte> pad = stackalloc byte[Sha256BlockSize];
        try
        {
            var hmac = new OpenSslHmacSha256(states);
            AbsorbPad(hmac._inner, key, InnerPad, pad);
            AbsorbPad(hmac._outer, key, OuterPad, pad);
            return hmac;
        }
        catch
        {
            states.Dispose();
            throw;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(pad);
        }
    }

    /// <summary>Starts a message from the keyed inner state.</summary>
    public void Begin() => Unsafe.CopyBlock(_work, _inner, Sha256StateSize);

    /// <summary>Hashes more of the message.</summary>
    public void Append(ReadOnlySpan<byte> data)
    {
        if (data.IsEmpty)
        {
            return;
        }

        fixed (byte* dataPointer = data)
        {
            Check(data.Length <= LibCrypto.ShortCallLimit
                ? LibCrypto.SHA256_UpdateShort(_work, dataPointer, (nuint)data.Length)
                : LibCrypto.SHA256_Update(_work, dataPointer, (nuint)data.Length));
        }
    }

    /// <summary>Ends the message and writes its 32-byte MAC to <paramref name="mac"/>.</summary>
    public void Finish(Span<byte> mac)
    {
        byte* innerDigest = stackalloc byte[Sha256Size];
        fixed (byte* macPointer = mac)
        {
            Check(LibCrypto.SHA256_FinalShort(innerDigest, _work));
            Unsafe.CopyBlock(_work, _outer, Sha256StateSize);
            Check(LibCrypto.SHA256_UpdateShort(_work, innerDigest, Sha256Size));
            Check(LibCrypto.SHA256_FinalShort(macPointer, _work));
        }
    }

    public override void Compute(ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, ReadOnlySpan<byte> third, Span<byte> mac)
    {
        Begin();
        Append(first);
        Append(second);
        Append(third);
        Finish(mac);
    }

    public override void Dispose() => _states.Dispose();

    private static void AbsorbPad(byte* state, ReadOnlySpan<byte> key, byte padByte, Span<byte> pad)
    {
        // A 32-byte key is shorter than the 64-byte block, so RFC 2104 zero-extends it before the XOR.
        pad.Fill(padByte);
        for (int i = 0; i < key.Length; i++)
        {
            pad[i] ^= key[i];
        }

        Check(LibCrypto.SHA256_Init(state));
        fixed (byte* padPointer = pad)
        {
            Check(LibCrypto.SHA256_Update(state, padPointer, Sha256BlockSize));
        }
    }

    private static void Check(int result)
    {
        if (result != 1)
        {
            AeadErrors.ThrowCipherFailure();
        }
    }
}
