using System.Buffers;
using System.Buffers.Text;
using System.Security.Cryptography;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Leasing;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Json.WireFormat;

/// <summary>
/// Recognises a format 3 encrypted value wherever it is found, whatever the envelope says (docs/wire-format.md,
/// "An encrypted value"): first by its shape alone (no key), then by which key's MAC authenticates it. The one
/// place that answers "is this ciphertext, and under which accepted key?" for reads, migration, patch and query
/// projections, so a value written as a cell is never taken for plaintext (and never encrypted a second time).
/// </summary>
internal static class EncryptedCell
{
    private const int StackLimit = 512;

    // marker(1) ‖ version(1) ‖ tag(32) ‖ IV(16) ‖ C(16·k, k ≥ 1): the smallest cell is 65 bytes, the blob 66.
    private const int MinBlobLength = 66;
    private const int BlockSize = 16;

    /// <summary>The version byte every format 3 cell starts with.</summary>
    private const byte CellVersion = 0x01;

    /// <summary>The version byte of a bound cell (same layout, a tag that also covers its document and selector).</summary>
    private const byte BoundCellVersion = 0x02;

    private static readonly SearchValues<byte> s_base64Alphabet = SearchValues.Create("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"u8);

    /// <summary>
    /// Whether <paramref name="base64"/> (the unescaped content of a JSON string) is structurally a format 3 value or
    /// a bound one: canonical padded base64 of a known type marker, the cell version byte (0x01, or 0x02 for a bound
    /// cell), and a length the layout allows (scalar markers exactly one block). A bound cell found where no metadata
    /// lists it cannot be authenticated out of its document, so it is refused as not authenticated, never taken for
    /// plaintext. No key is used and nothing is allocated; a match is only a candidate until
    /// <see cref="FindAuthenticatingKey"/> says which key, if any, wrote it.
    /// </summary>
    public static bool IsCellShaped(ReadOnlySpan<byte> base64)
    {
        int length = base64.Length;
        if (length < 4 || length % 4 != 0)
        {
            return false;
        }

        int padding = base64[^1] == '=' ? (base64[^2] == '=' ? 2 : 1) : 0;
        int blobLength = (length / 4 * 3) - padding;
        if (blobLength < MinBlobLength || (blobLength - MinBlobLength) % BlockSize != 0)
        {
            return false;
        }

        // Every character in the alphabet, '=' only as the final padding.
        if (base64[..(length - padding)].IndexOfAnyExcept(s_base64Alphabet) >= 0)
        {
            return false;
        }

        Span<byte> head = stackalloc byte[3];
        if (Base64.DecodeFromUtf8(base64[..4], head, out _, out int written, isFinalBlock: false) != OperationStatus.Done || written != 3)
        {
            return false;
        }

        var marker = (TypeMarker)head[0];
        if (marker is < TypeMarker.String or > TypeMarker.Object || head[1] is not (CellVersion or BoundCellVersion))
        {
            return false;
        }

        bool scalar = marker is TypeMarker.Double or TypeMarker.Long or TypeMarker.Boolean;
        return !scalar || blobLength == MinBlobLength;
    }

    /// <summary>Whether <paramref name="key"/> (leased by the caller) authenticates the value base64(marker ‖ cell).</summary>
    public static bool IsAuthenticatedBy(DataEncryptionKey key, ReadOnlySpan<byte> base64)
    {
        int blobLength = EncryptedValueCodec.GetMaxBlobLength(base64.Length);
        int plainTextLength = key.GetDecryptByteCount(Math.Max(blobLength - 1, 0));
        int scratchLength = blobLength + plainTextLength;
        byte[]? rented = null;
        Span<byte> scratch = scratchLength <= StackLimit ? stackalloc byte[StackLimit] : (rented = ArrayPool<byte>.Shared.Rent(scratchLength));
        Span<byte> plainText = scratch.Slice(blobLength, plainTextLength);
        try
        {
            // Authenticating decrypts too (the AEAD offers no MAC-only check); the plaintext is wiped at once.
            return EncryptedValueCodec.TryDecrypt(key, base64, scratch[..blobLength], plainText, out _, out _) == EncryptedValueStatus.Valid;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(plainText);
            if (rented is not null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
    }

    /// <summary>
    /// Which of <paramref name="keyIds"/> (in order: the policy's current key first, then the accepted ones)
    /// authenticates the value, leasing each key from <paramref name="encryptor"/>. A key that cannot be had is
    /// skipped and reported through <paramref name="unavailableKeyId"/>, so the caller can tell "tampered" from
    /// "could not check".
    /// </summary>
    /// <param name="encryptor">Supplies the keys.</param>
    /// <param name="keyIds">The keys the value may be encrypted with.</param>
    /// <param name="algorithm">Their algorithm.</param>
    /// <param name="base64">The unescaped content of the JSON string (see <see cref="IsCellShaped"/>).</param>
    /// <param name="unavailableKeyId">The first key that could not be leased, or <see langword="null"/>.</param>
    /// <returns>The id of the key whose MAC verifies the value, or <see langword="null"/>.</returns>
    /// <remarks>
    /// Synchronous: it leases each key as the synchronous processor APIs do (free when the key is cached). Used only
    /// on the path that refuses a document, so the cost of a lookup there is acceptable.
    /// </remarks>
    public static string? FindAuthenticatingKey(Encryptor encryptor, IReadOnlyList<string> keyIds, string algorithm, ReadOnlySpan<byte> base64, out string? unavailableKeyId)
    {
        unavailableKeyId = null;
        for (int i = 0; i < keyIds.Count; i++)
        {
            DataEncryptionKeyLease lease;
            try
            {
                lease = KeyResolver.Lease(encryptor, keyIds[i], algorithm);
            }
            catch (EncryptionException)
            {
                unavailableKeyId ??= keyIds[i];
                continue;
            }

            using (lease)
            {
                if (IsAuthenticatedBy(lease.Key!, base64))
                {
                    return keyIds[i];
                }
            }
        }

        return null;
    }

    /// <summary>
    /// Which of <paramref name="keyIds"/> authenticates the value, leasing each key asynchronously: the form for async
    /// callers (query projections). Same order and rules as <see cref="FindAuthenticatingKey"/>.
    /// </summary>
    /// <param name="encryptor">Supplies the keys.</param>
    /// <param name="keyIds">The keys the value may be encrypted with (the policy's current key first).</param>
    /// <param name="algorithm">Their algorithm.</param>
    /// <param name="base64">The unescaped content of the JSON string.</param>
    /// <param name="cancellationToken">Cancels the key lookups.</param>
    /// <returns>The id of the key whose MAC verifies the value (or <see langword="null"/>), and the first key that could not be leased.</returns>
    public static async ValueTask<(string? KeyId, string? UnavailableKeyId)> FindAuthenticatingKeyAsync(Encryptor encryptor, IReadOnlyList<string> keyIds, string algorithm, ReadOnlyMemory<byte> base64, CancellationToken cancellationToken)
    {
        string? unavailable = null;
        for (int i = 0; i < keyIds.Count; i++)
        {
            DataEncryptionKeyLease lease;
            try
            {
                lease = await KeyResolver.LeaseAsync(encryptor, keyIds[i], algorithm, cancellationToken).ConfigureAwait(false);
            }
            catch (EncryptionException)
            {
                unavailable ??= keyIds[i];
                continue;
            }

            using (lease)
            {
                if (IsAuthenticatedBy(lease.Key!, base64.Span))
                {
                    return (keyIds[i], unavailable);
                }
            }
        }

        return (null, unavailable);
    }
}
