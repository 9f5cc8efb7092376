// Computing a value's tokens (docs/queries.md "Range and prefix queries"). Range: one token per stored level, the node
// of the value's offset. Prefix: slot j (0-based) holds the token of the prefix of MinRunes + j runes of the normalized
// text, or, when the text is shorter, a padding token keyed by the slot and the whole normalized text, so every
// document holds the same number of tokens and a strict reader can recompute every one of them.
using System.Buffers.Binary;
using System.Buffers.Text;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Tokens;

/// <summary>Computes query tokens under a data encryption key; nothing here stores key bytes.</summary>
internal static class QueryTokens
{
    /// <summary>Writes the token of (<paramref name="kind"/>, <paramref name="level"/>, <paramref name="encoding"/>) into <paramref name="destination"/> (<see cref="QueryTokenRule.TokenLength"/> bytes).</summary>
    public static void Compute(DataEncryptionKey key, QueryTokenRule rule, QueryTokenKind kind, int level, ReadOnlySpan<byte> encoding, Span<byte> destination)
    {
        Span<byte> head = stackalloc byte[3];
        head[0] = (byte)kind;
        BinaryPrimitives.WriteUInt16BigEndian(head[1..], (ushort)level);
        Span<byte> mac = stackalloc byte[32];
        key.ComputeQueryTokenLeased(rule.Header, head, encoding, mac);
        mac[..rule.TokenLength].CopyTo(destination);
    }

    /// <summary>Writes the token of the range node (<paramref name="level"/>, <paramref name="node"/>).</summary>
    public static void ComputeRangeNode(DataEncryptionKey key, QueryTokenRule rule, int level, ulong node, Span<byte> destination)
    {
        Span<byte> encoding = stackalloc byte[8];
        BinaryPrimitives.WriteUInt64BigEndian(encoding, node);
        Compute(key, rule, QueryTokenKind.Range, level, encoding, destination);
    }

    /// <summary>
    /// Writes the <see cref="QueryTokenRule.TokenCount"/> tokens of a value into <paramref name="destination"/>
    /// (count × length bytes), from the value as the cell holds it (<paramref name="marker"/> and the cell's
    /// plaintext): writers and readers of both processors compute from the same bytes, so they agree by construction.
    /// </summary>
    /// <exception cref="EncryptionException">The value does not fit the declaration (naming the path, never the value).</exception>
    public static void ComputeFromPlainText(DataEncryptionKey key, QueryTokenRule rule, TypeMarker marker, ReadOnlySpan<byte> plainText, Span<byte> destination)
    {
        switch (marker)
        {
            case TypeMarker.String when rule.Range is { Type: RangeValueType.DateTime } domain:
                if (!IsoDateTime.TryParseUtcTicks(plainText, out long ticks))
                {
                    throw ValueError(rule, EncryptionErrorKind.InvalidOptions, "a date-time range path holds ISO 8601 strings with an offset (yyyy-MM-ddTHH:mm:ss[.fffffff](Z|+hh:mm|-hh:mm))");
                }

                ComputeRange(key, rule, domain, ticks, destination);
                return;
            case TypeMarker.String when rule.IsPrefix:
                ComputePrefix(key, rule, plainText, destination);
                return;
            case TypeMarker.Long when rule.Range is { Type: not RangeValueType.DateTime } domain:
                ComputeRange(key, rule, domain, BinaryPrimitives.ReadInt64LittleEndian(plainText), destination);
                return;
            case TypeMarker.Double when rule.Range is { Type: not RangeValueType.DateTime } domain:
                decimal value;
                try
                {
                    value = (decimal)BinaryPrimitives.ReadDoubleLittleEndian(plainText);
                }
                catch (OverflowException)
                {
                    throw ValueError(rule, EncryptionErrorKind.LimitExceeded, "the value lies outside the declared range");
                }

                if (domain.Type == RangeValueType.Integer && decimal.Truncate(value) != value)
                {
                    throw ValueError(rule, EncryptionErrorKind.InvalidOptions, "an integer range path holds integers only");
                }

                ComputeRange(key, rule, domain, value, destination);
                return;
            default:
                throw ValueError(rule, EncryptionErrorKind.InvalidOptions, rule.IsPrefix
                    ? "a prefix path holds strings only"
                    : rule.Range!.Type == RangeValueType.DateTime ? "a date-time range path holds strings only" : "a numeric range path holds JSON numbers only");
        }
    }

    private static void ComputeRange(DataEncryptionKey key, QueryTokenRule rule, RangeDomain domain, decimal value, Span<byte> destination)
    {
        if (!domain.TryGetOffset(value, out ulong offset))
        {
            throw ValueError(rule, EncryptionErrorKind.LimitExceeded, "the value lies outside the declared range");
        }

        int slot = 0;
        for (int level = 1; level <= domain.Bits; level++)
        {
            if (domain.IsStored(level))
            {
                ComputeRangeNode(key, rule, level, offset >> (domain.Bits - level), destination.Slice(slot++ * rule.TokenLength, rule.TokenLength));
            }
        }
    }

    private static void ComputePrefix(DataEncryptionKey key, QueryTokenRule rule, ReadOnlySpan<byte> utf8, Span<byte> destination)
    {
        var text = default(PrefixText);
        try
        {
            if (!text.TryNormalize(utf8, rule.IgnoreCase))
            {
                throw ValueError(rule, EncryptionErrorKind.InvalidOptions, "the string is not valid Unicode");
            }

            for (int slot = 0; slot < rule.TokenCount; slot++)
            {
                int runes = rule.MinRunes + slot;
                int length = PrefixText.PrefixByteLength(text.Utf8, runes);
                Span<byte> token = destination.Slice(slot * rule.TokenLength, rule.TokenLength);
                if (length >= 0)
                {
                    Compute(key, rule, QueryTokenKind.Prefix, runes, text.Utf8[..length], token);
                }
                else
                {
                    Compute(key, rule, QueryTokenKind.Padding, slot, text.Utf8, token);
                }
            }
        }
        finally
        {
            text.Dispose();
        }
    }

    /// <summary>Writes <paramref name="tokens"/> as a JSON array of base64url strings; returns the bytes written.</summary>
    public static int WriteArray(ReadOnlySpan<byte> tokens, int tokenLength, Span<byte> destination)
    {
        int position = 0;
        destination[position++] = (byte)'[';
        for (int i = 0; i < tokens.Length; i += tokenLength)
        {
            if (i > 0)
            {
                destination[position++] = (byte)',';
            }

            destination[position++] = (byte)'"';
            position += Base64Url.EncodeToUtf8(tokens.Slice(i, tokenLength), destination[position..]);
            destination[position++] = (byte)'"';
        }

        destination[position++] = (byte)']';
        return position;
    }

    /// <summary>The length of <see cref="WriteArray"/>'s output for <paramref name="rule"/>.</summary>
    public static int ArrayLength(QueryTokenRule rule) => 2 + (rule.TokenCount * (rule.EncodedLength + 3)) - 1;

    private static EncryptionException ValueError(QueryTokenRule rule, EncryptionErrorKind kind, string reason) =>
        new(kind, $"The value at '{rule.Path}' cannot be given query tokens: {reason} (declared: {rule.Descriptor}).", path: rule.Path);
}
