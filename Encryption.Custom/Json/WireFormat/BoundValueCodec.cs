// Encodes and decodes one bound value (wire-format.md "Bound cells"): the same JSON string as EncryptedValueCodec
// writes, base64(marker ‖ cell), with a cell of version 0x02 whose tag covers the document's CellBinding, the
// value's selector and its marker. Both processors call this for every value of a bound path; deterministic paths
// never come here (they stay format 3 cells, see wire-format.md).
using System.Buffers;
using System.Buffers.Text;
using System.Diagnostics;
using Encryption.Custom.Crypto;
using Encryption.Custom.Json.Errors;

namespace Encryption.Custom.Json.WireFormat;

/// <summary>The bound counterpart of <see cref="EncryptedValueCodec"/>; the caller holds a lease on the key.</summary>
internal static class BoundValueCodec
{
    private const int StackLimit = 256;

    /// <summary>The exact base64 length of a bound value: the same as an unbound one.</summary>
    public static int GetEncodedLength(DataEncryptionKey key, int plainTextLength) =>
        EncryptedValueCodec.GetEncodedLength(key, plainTextLength);

    /// <summary>
    /// Encrypts <paramref name="plainText"/> into a bound cell for <paramref name="selector"/> in the document of
    /// <paramref name="binding"/>, and writes base64(<paramref name="marker"/> ‖ cell) to <paramref name="destination"/>.
    /// </summary>
    /// <param name="key">The data encryption key (the library's own: other keys cannot bind).</param>
    /// <param name="binding">The document's binding.</param>
    /// <param name="selector">The UTF-8 policy path of the value, as written in the policy.</param>
    /// <param name="marker">The JSON type of the value.</param>
    /// <param name="plainText">The plaintext bytes.</param>
    /// <param name="destination">At least <see cref="GetEncodedLength"/> bytes.</param>
    /// <returns>The number of base64 bytes written.</returns>
    public static int Encode(DataEncryptionKey key, in CellBinding binding, ReadOnlySpan<byte> selector, TypeMarker marker, ReadOnlySpan<byte> plainText, Span<byte> destination)
    {
        int associatedLength = CellBinding.GetAssociatedDataLength(selector.Length);
        int blobLength = 1 + key.GetEncryptByteCount(plainText.Length);
        int scratchLength = associatedLength + blobLength;

        // A and the cell are public; one scratch for both.
        byte[]? rented = null;
        Span<byte> scratch = scratchLength <= StackLimit * 2 ? stackalloc byte[StackLimit * 2] : (rented = ArrayPool<byte>.Shared.Rent(scratchLength));
        try
        {
            Span<byte> associatedData = scratch[..binding.WriteAssociatedData(marker, selector, scratch)];
            Span<byte> blob = scratch.Slice(associatedLength, blobLength);
            blob[0] = (byte)marker;
            int written = key.EncryptBoundLeased(associatedData, plainText, blob[1..]);
            OperationStatus status = Base64.EncodeToUtf8(blob[..(1 + written)], destination, out _, out int encoded);
            Debug.Assert(status == OperationStatus.Done, "Base64 cannot fail with a large enough buffer.");
            return encoded;
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
    }

    /// <summary>
    /// Decodes base64(marker ‖ cell), checks the marker, and authenticates the cell under the binding of
    /// <paramref name="selector"/> in <paramref name="binding"/>'s document before decrypting it.
    /// </summary>
    /// <param name="key">The data encryption key.</param>
    /// <param name="binding">The document's binding, computed from the document being read.</param>
    /// <param name="selector">The UTF-8 policy path the value was found under.</param>
    /// <param name="base64">The unescaped content of the JSON string.</param>
    /// <param name="plainText">At least <see cref="EncryptedValueCodec.GetMaxPlainTextLength"/> bytes; receives the plaintext.</param>
    /// <param name="marker">The type marker.</param>
    /// <param name="plainTextLength">The plaintext length.</param>
    /// <returns>
    /// <see cref="EncryptedValueStatus.Valid"/>, a decoding status, <see cref="EncryptedValueStatus.NotBound"/> for a format
    /// 3 cell, <see cref="EncryptedValueStatus.BindingMismatch"/> for a bound cell that belongs elsewhere (or is
    /// corrupted), or <see cref="EncryptedValueStatus.NotAuthentic"/> for bytes that are not a cell at all.
    /// </returns>
    /// <remarks>The decoded cell (marker and ciphertext, nothing secret) goes to a scratch of its own: on the stack, pooled above that.</remarks>
    public static EncryptedValueStatus TryDecrypt(
        DataEncryptionKey key,
        in CellBinding binding,
        ReadOnlySpan<byte> selector,
        ReadOnlySpan<byte> base64,
        Span<byte> plainText,
        out TypeMarker marker,
        out int plainTextLength)
    {
        plainTextLength = 0;
        int blobLength = EncryptedValueCodec.GetMaxBlobLength(base64.Length);
        byte[]? rented = null;
        Span<byte> blob = blobLength <= StackLimit * 2 ? stackalloc byte[StackLimit * 2] : (rented = ArrayPool<byte>.Shared.Rent(blobLength));
        try
        {
            EncryptedValueStatus status = EncryptedValueCodec.TryDecode(base64, blob, out marker, out blobLength);
            if (status != EncryptedValueStatus.Valid)
            {
                return status;
            }

            return TryDecryptCell(key, binding, selector, marker, blob[1..blobLength], plainText, out plainTextLength);
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
    }

    /// <summary>
    /// Authenticates the decoded <paramref name="cell"/> (after its marker) under the binding of
    /// <paramref name="selector"/> in <paramref name="binding"/>'s document, then decrypts it.
    /// </summary>
    /// <returns>As <see cref="TryDecrypt"/>, without the decoding statuses.</returns>
    public static EncryptedValueStatus TryDecryptCell(
        DataEncryptionKey key,
        in CellBinding binding,
        ReadOnlySpan<byte> selector,
        TypeMarker marker,
        ReadOnlySpan<byte> cell,
        Span<byte> plainText,
        out int plainTextLength)
    {
        EncryptedValueStatus status;
        int associatedLength = CellBinding.GetAssociatedDataLength(selector.Length);
        byte[]? rented = null;
        Span<byte> associatedData = associatedLength <= StackLimit ? stackalloc byte[StackLimit] : (rented = ArrayPool<byte>.Shared.Rent(associatedLength));
        try
        {
            associatedData = associatedData[..binding.WriteAssociatedData(marker, selector, associatedData)];
            AeadCellCheck check = key.TryDecryptBoundLeased(associatedData, cell, plainText, out plainTextLength);
            status = check switch
            {
                AeadCellCheck.Valid => EncryptedValueStatus.Valid,
                AeadCellCheck.NotBound => EncryptedValueStatus.NotBound,
                AeadCellCheck.BindingMismatch => EncryptedValueStatus.BindingMismatch,
                _ => EncryptedValueStatus.NotAuthentic,
            };
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }

        // The marker is inside the tag now, but a writer with the key could still pair a scalar marker with a
        // longer plaintext: the length check stays.
        bool scalar = marker is TypeMarker.Double or TypeMarker.Long or TypeMarker.Boolean;
        return status == EncryptedValueStatus.Valid && scalar && plainTextLength != ScalarEncoding.Length
            ? EncryptedValueStatus.InvalidLengthForMarker
            : status;
    }
}
