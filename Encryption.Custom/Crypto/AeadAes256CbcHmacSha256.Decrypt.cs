// Decryption side of AEAD_AES_256_CBC_HMAC_SHA256 (wire-format.md §1), checks in the order the format fixes:
//   1. |cell| ≥ 65 and (|cell| − 49) mod 16 = 0     2. cell[0] = 0x01
//   3. TagComparison.Equal(HMAC-SHA256(macKey, 0x01 ‖ IV ‖ C ‖ 0x01), cell[1..33]) (constant time)
//   4. only then AES-256-CBC-decrypt C and strip PKCS#7 padding.
// Every failure is the same InvalidCipherText with one fixed message; no partial plaintext is left behind.
using System.Security.Cryptography;

namespace Encryption.Custom.Crypto;

internal sealed partial class AeadAes256CbcHmacSha256
{
    private const int Rejected = -1;

    // Bound cells only: a format-3 (version 0x01) cell where a bound one is required.
    private const int RejectedNotBound = -2;

    // Bound cells only: well-formed version 0x02 cell whose tag does not verify under the caller's associated data.
    private const int RejectedBindingMismatch = -3;

    /// <summary>Authenticates the cell <paramref name="cipherText"/> and writes its plaintext to <paramref name="destination"/>.</summary>
    /// <param name="cipherText">The cell.</param>
    /// <param name="destination">At least <see cref="GetMaxPlainTextLength"/> bytes; must not overlap <paramref name="cipherText"/>.</param>
    /// <returns>The number of plaintext bytes written.</returns>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is too small or overlaps <paramref name="cipherText"/>.</exception>
    /// <exception cref="EncryptionException">
    /// The cell is malformed or not authentic for this key (<see cref="EncryptionErrorKind.InvalidCipherText"/>, one fixed message).
    /// </exception>
    /// <exception cref="ObjectDisposedException">This instance, or the key source, was disposed.</exception>
    /// <exception cref="CryptographicException">The cryptographic provider failed.</exception>
    public int Decrypt(ReadOnlySpan<byte> cipherText, Span<byte> destination)
    {
        int written = DecryptCore(cipherText, destination, associatedData: default, bound: false);
        if (written == Rejected)
        {
            AeadErrors.ThrowInvalidCipherText();
        }

        return written;
    }

    /// <summary>
    /// Like <see cref="Decrypt(ReadOnlySpan{byte}, Span{byte})"/>, but reports a malformed or inauthentic cell by returning
    /// <see langword="false"/> instead of throwing (for callers that report per item). Argument misuse still throws.
    /// </summary>
    /// <param name="cipherText">The cell.</param>
    /// <param name="destination">At least <see cref="GetMaxPlainTextLength"/> bytes; must not overlap <paramref name="cipherText"/>.</param>
    /// <param name="bytesWritten">The number of plaintext bytes written; 0 when the cell is rejected.</param>
    /// <returns><see langword="true"/> when the cell is authentic and was decrypted.</returns>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is too small or overlaps <paramref name="cipherText"/>.</exception>
    /// <exception cref="ObjectDisposedException">This instance, or the key source, was disposed.</exception>
    /// <exception cref="CryptographicException">The cryptographic provider failed.</exception>
    public bool TryDecrypt(ReadOnlySpan<byte> cipherText, Span<byte> destination, out int bytesWritten)
    {
        int written = DecryptCore(cipherText, destination, associatedData: default, bound: false);
        bytesWritten = Math.Max(written, 0);
        return written >= 0;
    }

    /// <summary>Authenticates the cell <paramref name="cipherText"/> and returns its plaintext in a new array.</summary>
    /// <param name="cipherText">The cell.</param>
    /// <returns>The plaintext.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="cipherText"/> is null.</exception>
    /// <exception cref="EncryptionException">The cell is malformed or not authentic for this key (<see cref="EncryptionErrorKind.InvalidCipherText"/>).</exception>
    /// <exception cref="ObjectDisposedException">This instance, or the key source, was disposed.</exception>
    /// <exception cref="CryptographicException">The cryptographic provider failed.</exception>
    public byte[] Decrypt(byte[] cipherText)
    {
        ArgumentNullException.ThrowIfNull(cipherText);
        byte[] buffer = new byte[GetMaxPlainTextLength(cipherText.Length)];
        int written = Decrypt(cipherText, buffer);
        if (written == buffer.Length)
        {
            return buffer;
        }

        byte[] plainText = buffer.AsSpan(0, written).ToArray();
        CryptographicOperations.ZeroMemory(buffer);
        return plainText;
    }

    /// <returns>The plaintext length, or one of the negative rejection codes.</returns>
    private int DecryptCore(ReadOnlySpan<byte> cipherText, Span<byte> destination, ReadOnlySpan<byte> associatedData, bool bound)
    {
        ThrowIfDisposed();
        if (destination.Length < GetMaxPlainTextLength(cipherText.Length))
        {
            AeadErrors.ThrowDestinationTooSmall(nameof(destination));
        }

        if (cipherText.Overlaps(destination))
        {
            AeadErrors.ThrowOverlappingBuffers(nameof(destination));
        }

        if (cipherText.Length < AeadCellLayout.MinimumCellSize
            || (cipherText.Length - AeadCellLayout.HeaderSize) % AeadCellLayout.BlockSize != 0)
        {
            return Rejected;
        }

        if (cipherText[0] != (bound ? AeadCellLayout.BoundVersion : AeadCellLayout.Version))
        {
            // The version byte is public: saying that a format-3 cell stands where a bound one must is no oracle.
            return bound && cipherText[0] == AeadCellLayout.Version ? RejectedNotBound : Rejected;
        }

        AeadContext context = _pool.Rent();
        bool completed = false;
        try
        {
            Span<byte> tag = stackalloc byte[AeadCellLayout.TagSize];
            if (bound)
            {
                context.ComputeBoundTag(associatedData, cipherText[AeadCellLayout.IvOffset..], tag);
            }
            else
            {
                context.ComputeTag(cipherText[AeadCellLayout.IvOffset..], tag);
            }

            int result = TagComparison.Equal(tag, cipherText.Slice(AeadCellLayout.TagOffset, AeadCellLayout.TagSize))
                ? DecryptAuthentic(context, cipherText, destination)
                : bound ? RejectedBindingMismatch : Rejected;
            completed = true;
            return result;
        }
        finally
        {
            _pool.Return(context, reusable: completed);
        }
    }

    private static int DecryptAuthentic(AeadContext context, ReadOnlySpan<byte> cell, Span<byte> destination)
    {
        ReadOnlySpan<byte> iv = cell.Slice(AeadCellLayout.IvOffset, AeadCellLayout.IvSize);
        ReadOnlySpan<byte> cipherText = cell[AeadCellLayout.CipherTextOffset..];

        if (cipherText.Length <= AeadCellLayout.MaxStackBufferSize)
        {
            // Small values: one native cipher call into the stack, then copy the unpadded plaintext out.
            Span<byte> padded = stackalloc byte[AeadCellLayout.MaxStackBufferSize];
            padded = padded[..cipherText.Length];
            try
            {
                context.DecryptCbc(iv, cipherText, padded, default);
                int length = GetUnpaddedLength(padded);
                if (length != Rejected)
                {
                    padded[..length].CopyTo(destination);
                }

                return length;
            }
            finally
            {
                CryptographicOperations.ZeroMemory(padded);
            }
        }

        int leadingLength = cipherText.Length - AeadCellLayout.BlockSize;
        Span<byte> lastBlock = stackalloc byte[AeadCellLayout.BlockSize];
        try
        {
            context.DecryptCbc(iv, cipherText, destination[..leadingLength], lastBlock);
            int lastLength = GetUnpaddedLength(lastBlock);
            if (lastLength == Rejected)
            {
                CryptographicOperations.ZeroMemory(destination[..leadingLength]);
                return Rejected;
            }

            lastBlock[..lastLength].CopyTo(destination[leadingLength..]);
            return leadingLength + lastLength;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(lastBlock);
        }
    }

    /// <summary>The length without PKCS#7 padding, or <see cref="Rejected"/> when the padding is malformed.</summary>
    /// <remarks>
    /// Runs only on authenticated data, so its timing reveals nothing an attacker could not compute; a bad padding here
    /// means a cell written with this key by a broken encoder.
    /// </remarks>
    private static int GetUnpaddedLength(ReadOnlySpan<byte> padded)
    {
        int padding = padded[^1];
        if (padding is < 1 or > AeadCellLayout.BlockSize)
        {
            return Rejected;
        }

        foreach (byte value in padded[^padding..])
        {
            if (value != padding)
            {
                return Rejected;
            }
        }

        return padded.Length - padding;
    }
}
