// Bound cells (wire-format.md "Bound cells"): the format-3 cell with version byte 0x02 and a tag that also covers
// the caller's associated data A, under a MAC key of its own:
//   cell = 0x02 ‖ tag(32) ‖ IV(16) ‖ C,   C = AES-256-CBC(encKey, IV, PKCS#7(plaintext))   (encKey as format 3)
//   tag  = HMAC-SHA256(boundMacKey, A ‖ IV ‖ C ‖ u64be(8·|A|))
// A starts with the version byte 0x02, so no bound tag input is ever a format-3 tag input (those end 0x01 and are
// keyed differently anyway). The IV is always random: a bound deterministic cell would differ per document, which
// defeats the equality deterministic encryption exists for, so deterministic paths stay unbound.
namespace Encryption.Custom.Crypto;

internal sealed partial class AeadAes256CbcHmacSha256
{
    /// <summary>
    /// Encrypts <paramref name="plainText"/> with a fresh random IV into a bound cell whose tag covers
    /// <paramref name="associatedData"/>.
    /// </summary>
    /// <param name="associatedData">The binding A; starts with the bound version byte 0x02, at most 64 KiB.</param>
    /// <param name="plainText">The value to encrypt.</param>
    /// <param name="destination">At least <see cref="GetCipherTextLength"/> bytes; must not overlap <paramref name="plainText"/>.</param>
    /// <returns>The number of bytes written: exactly <see cref="GetCipherTextLength"/>.</returns>
    /// <exception cref="ArgumentException">
    /// <paramref name="associatedData"/> does not start with 0x02 or is too long, or <paramref name="destination"/> is
    /// too small or overlaps <paramref name="plainText"/>.
    /// </exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="plainText"/> is too long for a cell.</exception>
    /// <exception cref="ObjectDisposedException">This instance, or the key source, was disposed.</exception>
    /// <exception cref="System.Security.Cryptography.CryptographicException">The cryptographic provider failed.</exception>
    public int EncryptBound(ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> plainText, Span<byte> destination)
    {
        ThrowIfInvalidAssociatedData(associatedData);
        return EncryptCore(plainText, destination, deterministic: false, ivContext: default, associatedData, bound: true);
    }

    /// <summary>
    /// Authenticates the bound cell <paramref name="cipherText"/> under <paramref name="associatedData"/> and, when it
    /// verifies, writes its plaintext to <paramref name="destination"/>. Nothing is written otherwise.
    /// </summary>
    /// <param name="associatedData">The binding A the cell must have been written with.</param>
    /// <param name="cipherText">The cell.</param>
    /// <param name="destination">At least <see cref="GetMaxPlainTextLength"/> bytes; must not overlap <paramref name="cipherText"/>.</param>
    /// <param name="bytesWritten">The number of plaintext bytes written; 0 unless the result is <see cref="AeadCellCheck.Valid"/>.</param>
    /// <returns>Whether the cell verified, and if not, what is wrong with it.</returns>
    /// <exception cref="ArgumentException">
    /// <paramref name="associatedData"/> is invalid, or <paramref name="destination"/> is too small or overlaps <paramref name="cipherText"/>.
    /// </exception>
    /// <exception cref="ObjectDisposedException">This instance, or the key source, was disposed.</exception>
    /// <exception cref="System.Security.Cryptography.CryptographicException">The cryptographic provider failed.</exception>
    public AeadCellCheck TryDecryptBound(ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> cipherText, Span<byte> destination, out int bytesWritten)
    {
        ThrowIfInvalidAssociatedData(associatedData);
        int written = DecryptCore(cipherText, destination, associatedData, bound: true);
        bytesWritten = Math.Max(written, 0);
        return written switch
        {
            >= 0 => AeadCellCheck.Valid,
            RejectedNotBound => AeadCellCheck.NotBound,
            RejectedBindingMismatch => AeadCellCheck.BindingMismatch,
            _ => AeadCellCheck.Malformed,
        };
    }

    /// <summary>Like <see cref="TryDecryptBound"/>, but throws when the cell does not verify.</summary>
    /// <returns>The number of plaintext bytes written.</returns>
    /// <exception cref="EncryptionException">
    /// <see cref="EncryptionErrorKind.CellBindingMismatch"/> when the cell does not belong here (or is corrupted) or is
    /// not bound; <see cref="EncryptionErrorKind.InvalidCipherText"/> when it is not a cell at all.
    /// </exception>
    /// <inheritdoc cref="TryDecryptBound" path="/param"/>
    public int DecryptBound(ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> cipherText, Span<byte> destination)
    {
        AeadCellCheck check = TryDecryptBound(associatedData, cipherText, destination, out int written);
        if (check != AeadCellCheck.Valid)
        {
            throw AeadErrors.BoundCellRejected(check);
        }

        return written;
    }

    /// <summary>
    /// Writes HMAC-SHA256(key, <paramref name="first"/> ‖ <paramref name="second"/> ‖ <paramref name="third"/>) to
    /// <paramref name="mac"/> (32 bytes) under a document-level key derived from this instance's root key:
    /// <see cref="AeadSubKey.Commitment"/> for the document commitment's MAC (wire-format.md "Document commitment"),
    /// <see cref="AeadSubKey.QueryToken"/> for an untruncated query token (docs/queries.md "Range and prefix queries").
    /// The input is public and the caller's; the key never leaves the pooled context.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="key"/> is not a document-level key.</exception>
    /// <exception cref="ObjectDisposedException">This instance, or the key source, was disposed.</exception>
    public void ComputeDocumentMac(AeadSubKey key, ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, ReadOnlySpan<byte> third, Span<byte> mac)
    {
        if (key is not (AeadSubKey.Commitment or AeadSubKey.QueryToken))
        {
            throw new ArgumentOutOfRangeException(nameof(key), key, "Only the commitment and query-token keys MAC a caller's input.");
        }

        ThrowIfDisposed();
        AeadContext context = _pool.Rent();
        bool completed = false;
        try
        {
            context.ComputeDocumentMac(key, first, second, third, mac);
            completed = true;
        }
        finally
        {
            _pool.Return(context, reusable: completed);
        }
    }

    private static void ThrowIfInvalidAssociatedData(ReadOnlySpan<byte> associatedData)
    {
        if (associatedData.IsEmpty
            || associatedData[0] != AeadCellLayout.BoundVersion
            || associatedData.Length > AeadCellLayout.MaxAssociatedDataLength)
        {
            AeadErrors.ThrowInvalidAssociatedData(nameof(associatedData));
        }
    }
}
