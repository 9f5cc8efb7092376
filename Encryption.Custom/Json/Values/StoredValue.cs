using System.Buffers;
using System.Text;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Values;

/// <summary>
/// A value encrypted on its own for a path, in the text the document stores at that path: base64(marker ‖ cell),
/// deterministic when the site is, and for <c>/id</c> in the id's URL-safe alphabet (<see cref="IdCellText"/>). What a
/// deterministic query operand, a lookup of an encrypted id or partition key, or a patch value sends must be the
/// cell a processor writes, so they all come here (the processors write the same bytes through
/// <see cref="EncryptedValueCodec"/> and <see cref="IdCellText.ToStored"/> on their own buffers).
/// </summary>
internal static class StoredValue
{
    /// <summary>Encrypts <paramref name="plainText"/> for <paramref name="site"/> (never bound: a value on its own has no document).</summary>
    /// <exception cref="EncryptionException">The id is too long to be encrypted (<see cref="EncryptionErrorKind.LimitExceeded"/>).</exception>
    public static string Encrypt(DataEncryptionKey key, TypeMarker marker, ReadOnlySpan<byte> plainText, scoped in ValueSite site)
    {
        // The buffer holds ciphertext only.
        byte[] encoded = ArrayPool<byte>.Shared.Rent(EncryptedValueCodec.GetEncodedLength(key, plainText.Length));
        try
        {
            int length = EncryptedValueCodec.Encode(key, marker, plainText, encoded, site.Deterministic);
            if (site.Path == IdCellText.Path)
            {
                // As the id is stored; an id too long to be encrypted is refused, as a write would be.
                length = IdCellText.ToStored(encoded.AsSpan(0, length));
            }

            return Encoding.ASCII.GetString(encoded, 0, length);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(encoded);
        }
    }

    /// <inheritdoc cref="Encrypt(DataEncryptionKey, TypeMarker, ReadOnlySpan{byte}, in ValueSite)"/>
    public static string Encrypt(DataEncryptionKey key, PlainValueBuffer value, scoped in ValueSite site) =>
        Encrypt(key, value.Marker, value.PlainText, site);

    /// <summary>Encrypts one UTF-8 JSON value (not <c>null</c>) for <paramref name="site"/>: a patch value, a partition key token.</summary>
    /// <exception cref="EncryptionException">The value cannot be encrypted (not one JSON value, <c>null</c>, a number beyond int64, an object or array on a deterministic path, nesting too deep).</exception>
    public static string EncryptJson(DataEncryptionKey key, ReadOnlySpan<byte> json, scoped in ValueSite site, int maxDepth)
    {
        using PlainValueBuffer? value = PlainValueBuffer.FromJson(json, site, maxDepth);
        if (value is null)
        {
            JsonErrors.ThrowUnsupportedValue(site.Path);
        }

        return Encrypt(key, value, site);
    }

    /// <summary>Encrypts a string for <paramref name="site"/>: an id or partition key looked up.</summary>
    /// <exception cref="EncryptionException">The string holds a lone surrogate, or the id is too long to be encrypted.</exception>
    public static string EncryptString(DataEncryptionKey key, string value, scoped in ValueSite site)
    {
        using PlainValueBuffer plainText = PlainValueBuffer.FromString(value, site.Path);
        return Encrypt(key, plainText, site);
    }
}
