// AES key wrap, RFC 3394 §2.2 (index-based form), and AES key wrap with padding, RFC 5649.
//
// RFC 3394 layout: input P = P1..Pn (n >= 2 blocks of 8 bytes); output C = A ‖ R1..Rn (8·(n+1) bytes), where A
// starts as the default IV A6A6A6A6A6A6A6A6 and, for j = 0..5 and i = 1..n,
//   B = AES-ECB(K, A ‖ Ri);  A = MSB64(B) XOR t (t = n·j + i, big-endian);  Ri = LSB64(B).
// Unwrapping runs the steps backwards and accepts only if A ends equal to the IV (compared in fixed time).
// RFC 5649 is delegated to .NET's Aes.EncryptKeyWrapPadded / DecryptKeyWrapPadded.
using System.Buffers.Binary;
using System.Security.Cryptography;

namespace Encryption.Custom.Keys.Local;

/// <summary>AES key wrap primitives (RFC 3394 by hand over AES-ECB, RFC 5649 through the BCL).</summary>
internal static class AesKeyWrap
{
    private const int BlockSize = 8;
    private const ulong DefaultIv = 0xA6A6A6A6A6A6A6A6UL;

    /// <summary>The RFC 3394 output length for <paramref name="plainTextLength"/> bytes of key data.</summary>
    public static int GetWrappedLength(int plainTextLength) => plainTextLength + BlockSize;

    /// <summary>Wraps <paramref name="plainText"/> (a multiple of 8 bytes, at least 16) with RFC 3394.</summary>
    /// <exception cref="ArgumentException">The input length is not a multiple of 8 or below 16, or the destination is too short.</exception>
    public static void Wrap(ReadOnlySpan<byte> keyEncryptionKey, ReadOnlySpan<byte> plainText, Span<byte> destination)
    {
        if (plainText.Length < 2 * BlockSize || plainText.Length % BlockSize != 0)
        {
            throw new ArgumentException("RFC 3394 wraps at least 16 bytes, in multiples of 8.", nameof(plainText));
        }

        if (destination.Length < GetWrappedLength(plainText.Length))
        {
            throw new ArgumentException("The destination is too short.", nameof(destination));
        }

        int n = plainText.Length / BlockSize;
        Span<byte> block = stackalloc byte[2 * BlockSize];
        using Aes aes = CreateAes(keyEncryptionKey);
        try
        {
            ulong a = DefaultIv;
            plainText.CopyTo(destination[BlockSize..]);
            for (int j = 0; j <= 5; j++)
            {
                for (int i = 1; i <= n; i++)
                {
                    Span<byte> r = destination.Slice(i * BlockSize, BlockSize);
                    BinaryPrimitives.WriteUInt64BigEndian(block, a);
                    r.CopyTo(block[BlockSize..]);
                    aes.EncryptEcb(block, block, PaddingMode.None);
                    a = BinaryPrimitives.ReadUInt64BigEndian(block) ^ (ulong)((n * j) + i);
                    block[BlockSize..].CopyTo(r);
                }
            }

            BinaryPrimitives.WriteUInt64BigEndian(destination, a);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(block);
        }
    }

    /// <summary>Unwraps an RFC 3394 <paramref name="cipherText"/> into <paramref name="destination"/> (8 bytes shorter).</summary>
    /// <returns>False when the integrity check fails or the input length is invalid; the destination is then zeroed.</returns>
    /// <exception cref="ArgumentException">The destination is too short.</exception>
    public static bool TryUnwrap(ReadOnlySpan<byte> keyEncryptionKey, ReadOnlySpan<byte> cipherText, Span<byte> destination)
    {
        if (cipherText.Length < 3 * BlockSize || cipherText.Length % BlockSize != 0)
        {
            return false;
        }

        int n = (cipherText.Length / BlockSize) - 1;
        if (destination.Length < n * BlockSize)
        {
            throw new ArgumentException("The destination is too short.", nameof(destination));
        }

        Span<byte> output = destination[..(n * BlockSize)];
        Span<byte> block = stackalloc byte[2 * BlockSize];
        Span<byte> check = stackalloc byte[2 * BlockSize];
        using Aes aes = CreateAes(keyEncryptionKey);
        try
        {
            ulong a = BinaryPrimitives.ReadUInt64BigEndian(cipherText);
            cipherText[BlockSize..].CopyTo(output);
            for (int j = 5; j >= 0; j--)
            {
                for (int i = n; i >= 1; i--)
                {
                    Span<byte> r = output.Slice((i - 1) * BlockSize, BlockSize);
                    BinaryPrimitives.WriteUInt64BigEndian(block, a ^ (ulong)((n * j) + i));
                    r.CopyTo(block[BlockSize..]);
                    aes.DecryptEcb(block, block, PaddingMode.None);
                    a = BinaryPrimitives.ReadUInt64BigEndian(block);
                    block[BlockSize..].CopyTo(r);
                }
            }

            // Fixed-time check of the recovered IV, so timing says nothing about how close a forgery came.
            BinaryPrimitives.WriteUInt64BigEndian(check, a);
            BinaryPrimitives.WriteUInt64BigEndian(check[BlockSize..], DefaultIv);
            if (!CryptographicOperations.FixedTimeEquals(check[..BlockSize], check[BlockSize..]))
            {
                CryptographicOperations.ZeroMemory(output);
                return false;
            }

            return true;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(block);
            CryptographicOperations.ZeroMemory(check);
        }
    }

    /// <summary>The RFC 5649 output length for <paramref name="plainTextLength"/> bytes of key data.</summary>
    public static int GetPaddedWrappedLength(int plainTextLength) => Aes.GetKeyWrapPaddedLength(plainTextLength);

    /// <summary>Wraps <paramref name="plainText"/> (any non-empty length) with RFC 5649.</summary>
    /// <exception cref="ArgumentException">The input is empty or the destination is too short.</exception>
    public static void WrapPadded(ReadOnlySpan<byte> keyEncryptionKey, ReadOnlySpan<byte> plainText, Span<byte> destination)
    {
        using Aes aes = CreateAes(keyEncryptionKey);
        aes.EncryptKeyWrapPadded(plainText, destination);
    }

    /// <summary>Unwraps an RFC 5649 <paramref name="cipherText"/>.</summary>
    /// <returns>False when the integrity check or the padding check fails.</returns>
    public static bool TryUnwrapPadded(ReadOnlySpan<byte> keyEncryptionKey, ReadOnlySpan<byte> cipherText, Span<byte> destination, out int bytesWritten)
    {
        if (cipherText.Length < 2 * BlockSize || cipherText.Length % BlockSize != 0)
        {
            bytesWritten = 0;
            return false;
        }

        using Aes aes = CreateAes(keyEncryptionKey);
        try
        {
            return aes.TryDecryptKeyWrapPadded(cipherText, destination, out bytesWritten);
        }
        catch (CryptographicException)
        {
            // The BCL reports an integrity failure by throwing; callers want one uniform "does not unwrap".
            CryptographicOperations.ZeroMemory(destination);
            bytesWritten = 0;
            return false;
        }
    }

    private static Aes CreateAes(ReadOnlySpan<byte> keyEncryptionKey)
    {
        if (keyEncryptionKey.Length is not (16 or 24 or 32))
        {
            throw new ArgumentException("An AES key-encryption key is 16, 24 or 32 bytes.", nameof(keyEncryptionKey));
        }

        Aes aes = Aes.Create();
        aes.SetKey(keyEncryptionKey);
        return aes;
    }
}
