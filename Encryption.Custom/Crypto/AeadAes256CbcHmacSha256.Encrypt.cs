// Encryption side of AEAD_AES_256_CBC_HMAC_SHA256 (wire-format.md §1):
//   cell = 0x01 ‖ HMAC-SHA256(macKey, 0x01 ‖ IV ‖ C ‖ 0x01) ‖ IV ‖ C,  C = AES-256-CBC(encKey, IV, PKCS#7(plaintext))
// PKCS#7 is applied by hand: whole plaintext blocks are encrypted straight from the caller's span and only the
// last, padded block is built on the stack (the whole padded plaintext when it fits in 256 bytes).
using System.Security.Cryptography;

namespace Encryption.Custom.Crypto;

internal sealed partial class AeadAes256CbcHmacSha256
{
    /// <summary>Encrypts <paramref name="plainText"/> with a fresh random IV into a cell written to the start of <paramref name="destination"/>.</summary>
    /// <param name="plainText">The value to encrypt.</param>
    /// <param name="destination">At least <see cref="GetCipherTextLength"/> bytes; must not overlap <paramref name="plainText"/>.</param>
    /// <returns>The number of bytes written: exactly <see cref="GetCipherTextLength"/>.</returns>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is too small or overlaps <paramref name="plainText"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="plainText"/> is too long for a cell.</exception>
    /// <exception cref="ObjectDisposedException">This instance, or the key source, was disposed.</exception>
    /// <exception cref="CryptographicException">The cryptographic provider failed.</exception>
    public int Encrypt(ReadOnlySpan<byte> plainText, Span<byte> destination) =>
        EncryptCore(plainText, destination, deterministic: false, ivContext: default, associatedData: default, bound: false);

    /// <summary>
    /// Encrypts <paramref name="plainText"/> with the IV HMAC-SHA256(ivKey, <paramref name="ivContext"/> ‖
    /// <paramref name="plainText"/>)[0..16]: equal context and plaintext give equal cells (deterministic encryption).
    /// </summary>
    /// <param name="ivContext">What the IV binds besides the plaintext (the caller's framing; may be empty).</param>
    /// <param name="plainText">The value to encrypt.</param>
    /// <param name="destination">At least <see cref="GetCipherTextLength"/> bytes; must not overlap <paramref name="plainText"/>.</param>
    /// <returns>The number of bytes written: exactly <see cref="GetCipherTextLength"/>.</returns>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is too small or overlaps <paramref name="plainText"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="plainText"/> is too long for a cell.</exception>
    /// <exception cref="ObjectDisposedException">This instance, or the key source, was disposed.</exception>
    /// <exception cref="CryptographicException">The cryptographic provider failed.</exception>
    public int EncryptDeterministic(ReadOnlySpan<byte> ivContext, ReadOnlySpan<byte> plainText, Span<byte> destination) =>
        EncryptCore(plainText, destination, deterministic: true, ivContext, associatedData: default, bound: false);

    /// <summary>Encrypts <paramref name="plainText"/> with a random IV into a new cell.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="plainText"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="plainText"/> is too long for a cell.</exception>
    /// <exception cref="ObjectDisposedException">This instance, or the key source, was disposed.</exception>
    /// <exception cref="CryptographicException">The cryptographic provider failed.</exception>
    public byte[] Encrypt(byte[] plainText)
    {
        ArgumentNullException.ThrowIfNull(plainText);
        byte[] cell = new byte[GetCipherTextLength(plainText.Length)];
        Encrypt(plainText, cell);
        return cell;
    }

    /// <summary>Encrypts <paramref name="plainText"/> deterministically (see <see cref="EncryptDeterministic(ReadOnlySpan{byte}, ReadOnlySpan{byte}, Span{byte})"/>) into a new cell.</summary>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ObjectDisposedException">This instance, or the key source, was disposed.</exception>
    public byte[] EncryptDeterministic(byte[] ivContext, byte[] plainText)
    {
        ArgumentNullException.ThrowIfNull(ivContext);
        ArgumentNullException.ThrowIfNull(plainText);
        byte[] cell = new byte[GetCipherTextLength(plainText.Length)];
        EncryptDeterministic(ivContext, plainText, cell);
        return cell;
    }

    /// <summary>
    /// Whether <paramref name="cell"/>, whose authenticated plaintext is <paramref name="plainText"/>, carries the IV
    /// <see cref="EncryptDeterministic(ReadOnlySpan{byte}, ReadOnlySpan{byte}, Span{byte})"/> derives from
    /// <paramref name="ivContext"/>: the cell itself does not say how its IV was chosen. A random IV matches with
    /// probability 2^-128.
    /// </summary>
    /// <param name="ivContext">The context the deterministic IV would bind.</param>
    /// <param name="plainText">The cell's plaintext (the caller has authenticated and decrypted the cell).</param>
    /// <param name="cell">The cell.</param>
    /// <exception cref="ObjectDisposedException">This instance, or the key source, was disposed.</exception>
    /// <exception cref="CryptographicException">The cryptographic provider failed.</exception>
    public bool HasDeterministicIv(ReadOnlySpan<byte> ivContext, ReadOnlySpan<byte> plainText, ReadOnlySpan<byte> cell)
    {
        ThrowIfDisposed();
        if (cell.Length < AeadCellLayout.IvOffset + AeadCellLayout.IvSize)
        {
            return false;
        }

        Span<byte> iv = stackalloc byte[AeadCellLayout.IvSize];
        AeadContext context = _pool.Rent();
        bool completed = false;
        try
        {
            WriteDeterministicIv(context, ivContext, plainText, iv);
            completed = true;
            return iv.SequenceEqual(cell.Slice(AeadCellLayout.IvOffset, AeadCellLayout.IvSize));
        }
        finally
        {
            _pool.Return(context, reusable: completed);
            CryptographicOperations.ZeroMemory(iv);
        }
    }

    private int EncryptCore(
        ReadOnlySpan<byte> plainText,
        Span<byte> destination,
        bool deterministic,
        ReadOnlySpan<byte> ivContext,
        ReadOnlySpan<byte> associatedData,
        bool bound)
    {
        ThrowIfDisposed();
        int cellLength = GetCipherTextLength(plainText.Length);
        if (destination.Length < cellLength)
        {
            AeadErrors.ThrowDestinationTooSmall(nameof(destination));
        }

        if (plainText.Overlaps(destination))
        {
            AeadErrors.ThrowOverlappingBuffers(nameof(destination));
        }

        Span<byte> cell = destination[..cellLength];
        Span<byte> iv = cell.Slice(AeadCellLayout.IvOffset, AeadCellLayout.IvSize);
        AeadContext context = _pool.Rent();
        bool completed = false;
        try
        {
            if (deterministic)
            {
                WriteDeterministicIv(context, ivContext, plainText, iv);
            }
            else
            {
                AeadRandomIv.Fill(iv);
            }

            EncryptPadded(context, plainText, iv, cell[AeadCellLayout.CipherTextOffset..]);
            Span<byte> tag = cell.Slice(AeadCellLayout.TagOffset, AeadCellLayout.TagSize);
            if (bound)
            {
                cell[0] = AeadCellLayout.BoundVersion;
                context.ComputeBoundTag(associatedData, cell[AeadCellLayout.IvOffset..], tag);
            }
            else
            {
                cell[0] = AeadCellLayout.Version;
                context.ComputeTag(cell[AeadCellLayout.IvOffset..], tag);
            }

            completed = true;
            return cellLength;
        }
        finally
        {
            _pool.Return(context, reusable: completed);
        }
    }

    private static void WriteDeterministicIv(AeadContext context, ReadOnlySpan<byte> ivContext, ReadOnlySpan<byte> plainText, Span<byte> iv)
    {
        Span<byte> mac = stackalloc byte[AeadCellLayout.TagSize];
        try
        {
            context.ComputeIvMac(ivContext, plainText, mac);
            mac[..AeadCellLayout.IvSize].CopyTo(iv);
        }
        finally
        {
            // The unused half is still a keyed function of the plaintext.
            CryptographicOperations.ZeroMemory(mac);
        }
    }

    private static void EncryptPadded(AeadContext context, ReadOnlySpan<byte> plainText, ReadOnlySpan<byte> iv, Span<byte> cipherText)
    {
        int wholeBlocksLength = plainText.Length & ~(AeadCellLayout.BlockSize - 1);
        int paddedLength = wholeBlocksLength + AeadCellLayout.BlockSize;
        byte padding = (byte)(paddedLength - plainText.Length);

        if (paddedLength <= AeadCellLayout.MaxStackBufferSize)
        {
            // Small values: one contiguous padded buffer means one native cipher call.
            Span<byte> padded = stackalloc byte[AeadCellLayout.MaxStackBufferSize];
            padded = padded[..paddedLength];
            try
            {
                plainText.CopyTo(padded);
                padded[plainText.Length..].Fill(padding);
                context.EncryptCbc(iv, padded, default, cipherText);
            }
            finally
            {
                CryptographicOperations.ZeroMemory(padded);
            }
        }
        else
        {
            Span<byte> lastBlock = stackalloc byte[AeadCellLayout.BlockSize];
            try
            {
                plainText[wholeBlocksLength..].CopyTo(lastBlock);
                lastBlock[(plainText.Length - wholeBlocksLength)..].Fill(padding);
                context.EncryptCbc(iv, plainText[..wholeBlocksLength], lastBlock, cipherText);
            }
            finally
            {
                CryptographicOperations.ZeroMemory(lastBlock);
            }
        }
    }
}
