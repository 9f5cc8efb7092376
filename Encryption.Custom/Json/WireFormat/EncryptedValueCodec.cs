using System.Buffers;
using System.Buffers.Text;
using System.Diagnostics;
using System.Security.Cryptography;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Json.WireFormat;

/// <summary>
/// Encodes and decodes one encrypted property value (wire-format.md §3.2): the JSON string content is standard
/// padded base64 (<c>+/=</c>) of <c>typeMarker(1) ‖ cell</c>, where cell is the AEAD output of the plaintext.
/// The legacy format 2 blob (<c>_ed</c>) is base64 of a bare cell.
/// </summary>
/// <remarks>
/// The only place that frames values; both processors call it. Callers hold a <see cref="DataEncryptionKeyLease"/>
/// on the key for the whole document, so the key is used through its <c>*Leased</c> methods.
/// </remarks>
internal static class EncryptedValueCodec
{
    private const int StackLimit = 256;

    private static readonly SearchValues<byte> s_alphabet = SearchValues.Create("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="u8);

    /// <summary>The exact base64 length (without quotes) of a value whose plaintext is <paramref name="plainTextLength"/> bytes.</summary>
    public static int GetEncodedLength(DataEncryptionKey key, int plainTextLength) =>
        Base64.GetMaxEncodedToUtf8Length(1 + key.GetEncryptByteCount(plainTextLength));

    /// <summary>
    /// Encrypts <paramref name="plainText"/> and writes base64(<paramref name="marker"/> ‖ cell) to the start of
    /// <paramref name="destination"/>.
    /// </summary>
    /// <param name="key">The data encryption key.</param>
    /// <param name="marker">The JSON type of the value.</param>
    /// <param name="plainText">The plaintext bytes.</param>
    /// <param name="destination">At least <see cref="GetEncodedLength"/> bytes.</param>
    /// <param name="deterministicPath">
    /// Empty for randomized encryption (a fresh random IV); else the path's prefix from
    /// <see cref="DeterministicIvContext.CreatePathPrefix"/>, and the IV is derived from it, the marker and the plaintext.
    /// </param>
    /// <returns>The number of base64 bytes written.</returns>
    public static int Encode(DataEncryptionKey key, TypeMarker marker, ReadOnlySpan<byte> plainText, Span<byte> destination, ReadOnlySpan<byte> deterministicPath = default)
    {
        // The cell goes to scratch, then the vectorized encoder expands it into the destination (the in-place
        // encoder is scalar and about five times slower). The scratch holds only ciphertext.
        int blobLength = 1 + key.GetEncryptByteCount(plainText.Length);
        byte[]? rented = null;
        Span<byte> blob = blobLength <= StackLimit ? stackalloc byte[StackLimit] : (rented = ArrayPool<byte>.Shared.Rent(blobLength));
        try
        {
            blob[0] = (byte)marker;
            int written = deterministicPath.IsEmpty
                ? key.EncryptLeased(plainText, blob.Slice(1, blobLength - 1))
                : EncryptDeterministic(key, deterministicPath, marker, plainText, blob.Slice(1, blobLength - 1));
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

    private static int EncryptDeterministic(DataEncryptionKey key, ReadOnlySpan<byte> pathPrefix, TypeMarker marker, ReadOnlySpan<byte> plainText, Span<byte> cell)
    {
        // The context is public (path and marker), so scratch needs no wiping.
        byte[]? rented = null;
        Span<byte> context = pathPrefix.Length < StackLimit ? stackalloc byte[StackLimit] : (rented = ArrayPool<byte>.Shared.Rent(pathPrefix.Length + 1));
        try
        {
            return key.EncryptDeterministicLeased(WriteIvContext(pathPrefix, marker, context), plainText, cell);
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
    /// Whether the value base64(marker ‖ cell) is the deterministic encryption, for the path whose prefix is
    /// <paramref name="pathPrefix"/>, of its own plaintext (wire-format.md, "Deterministic values"). The cell does not
    /// say how its IV was chosen: the value is authenticated and decrypted, the IV recomputed and compared. A value
    /// encrypted randomized, or deterministically for another path, gives <see langword="false"/>.
    /// </summary>
    /// <param name="key">The data encryption key the value names.</param>
    /// <param name="base64">The unescaped content of the JSON string.</param>
    /// <param name="pathPrefix">The path's prefix from <see cref="DeterministicIvContext.CreatePathPrefix"/>.</param>
    /// <param name="deterministic">Whether the IV is the deterministic one (meaningful when the result is valid).</param>
    /// <returns>Why the value could not be checked, or <see cref="EncryptedValueStatus.Valid"/>.</returns>
    public static EncryptedValueStatus TryCheckDeterministic(DataEncryptionKey key, ReadOnlySpan<byte> base64, ReadOnlySpan<byte> pathPrefix, out bool deterministic)
    {
        deterministic = false;
        int blobLength = GetMaxBlobLength(base64.Length);
        int plainTextLength = key.GetDecryptByteCount(Math.Max(blobLength - 1, 0));
        int contextLength = pathPrefix.Length + 1;

        // One scratch: the blob and the context are public, the plaintext is wiped before it goes back.
        int scratchLength = blobLength + plainTextLength + contextLength;
        byte[]? rented = null;
        Span<byte> scratch = scratchLength <= StackLimit * 2 ? stackalloc byte[StackLimit * 2] : (rented = ArrayPool<byte>.Shared.Rent(scratchLength));
        Span<byte> blob = scratch[..blobLength];
        Span<byte> plainText = scratch.Slice(blobLength, plainTextLength);
        Span<byte> context = scratch.Slice(blobLength + plainTextLength, contextLength);
        try
        {
            EncryptedValueStatus status = TryDecode(base64, blob, out TypeMarker marker, out int decoded);
            if (status != EncryptedValueStatus.Valid)
            {
                return status;
            }

            ReadOnlySpan<byte> cell = blob[1..decoded];
            status = TryDecryptCell(key, marker, cell, plainText, out int written);
            if (status == EncryptedValueStatus.Valid)
            {
                deterministic = key.HasDeterministicIvLeased(WriteIvContext(pathPrefix, marker, context), plainText[..written], cell);
            }

            return status;
        }
        finally
        {
            // Also a rejected plaintext (a length that does not fit its marker) is plaintext.
            CryptographicOperations.ZeroMemory(plainText);
            if (rented is not null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
    }

    // prefix ‖ marker: what a deterministic IV binds besides the plaintext.
    private static ReadOnlySpan<byte> WriteIvContext(ReadOnlySpan<byte> pathPrefix, TypeMarker marker, Span<byte> destination)
    {
        pathPrefix.CopyTo(destination);
        destination[pathPrefix.Length] = (byte)marker;
        return destination[..(pathPrefix.Length + 1)];
    }

    /// <summary>The most bytes <paramref name="base64Length"/> base64 bytes decode to.</summary>
    public static int GetMaxBlobLength(int base64Length) => Base64.GetMaxDecodedFromUtf8Length(base64Length);

    /// <summary>The most plaintext bytes a value of <paramref name="base64Length"/> base64 bytes can hold.</summary>
    public static int GetMaxPlainTextLength(DataEncryptionKey key, int base64Length) =>
        key.GetDecryptByteCount(Math.Max(GetMaxBlobLength(base64Length) - 1, 0));

    /// <summary>Decodes base64(marker ‖ cell), checks the marker, authenticates and decrypts the cell.</summary>
    /// <param name="key">The data encryption key.</param>
    /// <param name="base64">The unescaped content of the JSON string.</param>
    /// <param name="blob">Scratch of at least <see cref="GetMaxBlobLength"/> bytes (receives ciphertext only).</param>
    /// <param name="plainText">At least <see cref="GetMaxPlainTextLength"/> bytes; receives the plaintext.</param>
    /// <param name="marker">The type marker.</param>
    /// <param name="plainTextLength">The plaintext length.</param>
    public static EncryptedValueStatus TryDecrypt(
        DataEncryptionKey key,
        ReadOnlySpan<byte> base64,
        Span<byte> blob,
        Span<byte> plainText,
        out TypeMarker marker,
        out int plainTextLength)
    {
        plainTextLength = 0;
        EncryptedValueStatus status = TryDecode(base64, blob, out marker, out int blobLength);
        return status == EncryptedValueStatus.Valid
            ? TryDecryptCell(key, marker, blob[1..blobLength], plainText, out plainTextLength)
            : status;
    }

    /// <summary>Decodes base64(marker ‖ cell) into <paramref name="blob"/> and checks the marker (the cell follows it).</summary>
    /// <param name="base64">The unescaped content of the JSON string.</param>
    /// <param name="blob">Scratch of at least <see cref="GetMaxBlobLength"/> bytes (receives ciphertext only).</param>
    /// <param name="marker">The type marker.</param>
    /// <param name="blobLength">The decoded length, marker included.</param>
    public static EncryptedValueStatus TryDecode(ReadOnlySpan<byte> base64, Span<byte> blob, out TypeMarker marker, out int blobLength)
    {
        marker = default;
        if (!TryDecodeBase64(base64, blob, out blobLength) || blobLength < 2)
        {
            return EncryptedValueStatus.InvalidBase64;
        }

        marker = (TypeMarker)blob[0];
        return marker is < TypeMarker.String or > TypeMarker.Object
            ? EncryptedValueStatus.UnknownMarker
            : EncryptedValueStatus.Valid;
    }

    /// <summary>Authenticates and decrypts the cell of a decoded value and checks its length against the marker.</summary>
    /// <param name="key">The data encryption key.</param>
    /// <param name="marker">The value's type marker (from <see cref="TryDecode"/>).</param>
    /// <param name="cell">The AEAD cell (the decoded blob after its marker).</param>
    /// <param name="plainText">At least <c>key.GetDecryptByteCount(cell.Length)</c> bytes; must not overlap <paramref name="cell"/>.</param>
    /// <param name="plainTextLength">The plaintext length (also when the length does not fit the marker, so the caller can wipe it).</param>
    public static EncryptedValueStatus TryDecryptCell(DataEncryptionKey key, TypeMarker marker, ReadOnlySpan<byte> cell, Span<byte> plainText, out int plainTextLength)
    {
        // The Try form: a wrong key or a tampered value inside a feed page costs no exception here.
        if (!key.TryDecryptLeased(cell, plainText, out plainTextLength))
        {
            return EncryptedValueStatus.NotAuthentic;
        }

        bool scalar = marker is TypeMarker.Double or TypeMarker.Long or TypeMarker.Boolean;
        return scalar && plainTextLength != ScalarEncoding.Length
            ? EncryptedValueStatus.InvalidLengthForMarker
            : EncryptedValueStatus.Valid;
    }

    /// <summary>Decodes and decrypts a format 2 <c>_ed</c> blob: base64 of a bare cell.</summary>
    public static EncryptedValueStatus TryDecryptLegacyBlob(
        DataEncryptionKey key,
        ReadOnlySpan<byte> base64,
        Span<byte> blob,
        Span<byte> plainText,
        out int plainTextLength)
    {
        plainTextLength = 0;
        if (!TryDecodeBase64(base64, blob, out int blobLength) || blobLength == 0)
        {
            return EncryptedValueStatus.InvalidBase64;
        }

        return key.TryDecryptLeased(blob[..blobLength], plainText, out plainTextLength)
            ? EncryptedValueStatus.Valid
            : EncryptedValueStatus.NotAuthentic;
    }

    private static bool TryDecodeBase64(ReadOnlySpan<byte> base64, Span<byte> blob, out int written)
    {
        // Canonical standard padded base64 only, so that one ciphertext has one string form: the length is a
        // multiple of 4, nothing outside the alphabet (the decoder itself skips whitespace) and the whole input is
        // consumed (the decoder refuses nonzero bits after the data in the last character).
        written = 0;
        if (base64.Length % 4 != 0 || base64.IndexOfAnyExcept(s_alphabet) >= 0)
        {
            return false;
        }

        OperationStatus status = Base64.DecodeFromUtf8(base64, blob, out int consumed, out written);
        return status == OperationStatus.Done && consumed == base64.Length;
    }
}
