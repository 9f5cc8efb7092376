using System.Buffers.Text;
using System.Globalization;
using System.Text;
using System.Text.Json;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Values;

/// <summary>
/// The one mapping from a JSON value to what the cipher takes: its type marker and plaintext bytes (docs/wire-format.md
/// "An encrypted value"). Every writer classifies through here: the stream processor's documents (its span-based
/// loop calls <see cref="Classify"/> and the scalar rules directly), the Newtonsoft processor, and every value
/// encrypted on its own (<see cref="PlainValueBuffer"/>: patch values, query operands, lookups of encrypted ids and
/// partition keys). A deterministic query or lookup finds a document only if it got the same bytes, so there is no
/// second copy of these rules anywhere.
/// </summary>
internal static class PlainValue
{
    private static readonly UTF8Encoding s_strictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    /// <summary>
    /// The marker of the value the reader is on. Numbers and booleans get their plaintext written to
    /// <paramref name="scalar"/> here; a string's plaintext is its unescaped UTF-8 and an object's or array's its
    /// compact text, which the caller takes from the reader (so the stream processor keeps copying nothing).
    /// </summary>
    /// <param name="reader">On the value's first token; not moved.</param>
    /// <param name="scalar"><see cref="ScalarEncoding.Length"/> bytes.</param>
    /// <param name="deterministic">Whether the path is deterministic (objects and arrays are then refused).</param>
    /// <param name="path">The path the errors name.</param>
    /// <param name="keyId">The key id the errors name.</param>
    /// <exception cref="EncryptionException">No cell can hold the value (null, a number beyond int64 or a double, a container on a deterministic path).</exception>
    public static TypeMarker Classify(scoped ref Utf8JsonReader reader, scoped Span<byte> scalar, bool deterministic, string path, string keyId)
    {
        switch (reader.TokenType)
        {
            case JsonTokenType.String:
                return TypeMarker.String;
            case JsonTokenType.Number:
                return Number(reader.ValueSpan, scalar, path);
            case JsonTokenType.True:
            case JsonTokenType.False:
                return Boolean(reader.TokenType == JsonTokenType.True, scalar);
            case JsonTokenType.StartObject:
            case JsonTokenType.StartArray:
                return Container(reader.TokenType == JsonTokenType.StartObject, deterministic, path, keyId);
            default:
                JsonErrors.ThrowUnsupportedValue(path);
                return default;
        }
    }

    /// <summary>
    /// A number from its text (JSON, or a SQL literal the query layer read): an int64 when the whole text parses as
    /// one, else a finite double. An integer literal beyond int64 is refused rather than rounded, and so is a number
    /// that overflows a double.
    /// </summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.LimitExceeded"/>, naming the path.</exception>
    public static TypeMarker Number(ReadOnlySpan<byte> text, Span<byte> scalar, string path)
    {
        // What Utf8JsonReader.TryGetInt64 accepts: the whole text, decimal digits with an optional sign.
        if (Utf8Parser.TryParse(text, out long integer, out int consumed) && consumed == text.Length)
        {
            return Integer(integer, scalar);
        }

        bool isIntegerLiteral = text.IndexOfAny((byte)'.', (byte)'e', (byte)'E') < 0;

        // The BCL parser rounds correctly; Utf8JsonReader.TryGetDouble is off by one ulp for some literals
        // (for example 298969000000000000000.0), which would disagree with Newtonsoft.Json.
        double value = 0;
        if (isIntegerLiteral
            || !double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out value)
            || !double.IsFinite(value))
        {
            JsonErrors.ThrowNumberNotRepresentable(path);
        }

        ScalarEncoding.WriteDouble(value, scalar);
        return TypeMarker.Double;
    }

    /// <summary>An integer that fits int64 (a parsed JSON integer, a SQL hex literal).</summary>
    public static TypeMarker Integer(long value, Span<byte> scalar)
    {
        ScalarEncoding.WriteInt64(value, scalar);
        return TypeMarker.Long;
    }

    /// <summary>A parsed non-integer number; refused unless finite.</summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.LimitExceeded"/>, naming the path.</exception>
    public static TypeMarker Double(double value, Span<byte> scalar, string path)
    {
        if (!double.IsFinite(value))
        {
            JsonErrors.ThrowNumberNotRepresentable(path);
        }

        ScalarEncoding.WriteDouble(value, scalar);
        return TypeMarker.Double;
    }

    /// <summary>true or false: the int64 1 or 0 (not one byte).</summary>
    public static TypeMarker Boolean(bool value, Span<byte> scalar)
    {
        ScalarEncoding.WriteBoolean(value, scalar);
        return TypeMarker.Boolean;
    }

    /// <summary>An object or array: its compact text is the plaintext. Refused on a deterministic path, whose equality its non-canonical text could not keep.</summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.InvalidOptions"/>, naming the path.</exception>
    public static TypeMarker Container(bool isObject, bool deterministic, string path, string keyId)
    {
        if (deterministic)
        {
            JsonErrors.ThrowDeterministicContainer(path, keyId);
        }

        return isObject ? TypeMarker.Object : TypeMarker.Array;
    }

    /// <summary>The most bytes <see cref="String"/> writes for <paramref name="value"/>.</summary>
    public static int GetMaxStringLength(string value) => s_strictUtf8.GetMaxByteCount(value.Length);

    /// <summary>
    /// A .NET string's plaintext: its UTF-8. A lone surrogate is refused, as a document's escaped one is
    /// (<see cref="Text.JsonStringUnescaper"/>): replacing it would encrypt another string than the one given.
    /// </summary>
    /// <returns>The bytes written to <paramref name="utf8"/> (at least <see cref="GetMaxStringLength"/> bytes; on failure, wipe all of it).</returns>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.MalformedDocument"/>, naming the path.</exception>
    public static int String(string value, Span<byte> utf8, string path)
    {
        try
        {
            return s_strictUtf8.GetBytes(value, utf8);
        }
        catch (EncoderFallbackException)
        {
            throw LoneSurrogate(path);
        }
    }

    /// <summary>
    /// The refusal of a string holding a lone surrogate, also for callers whose serializer met it first (its own
    /// message quotes the character).
    /// </summary>
    public static EncryptionException LoneSurrogate(string path) =>
        new(EncryptionErrorKind.MalformedDocument, $"The string at '{path}' is not valid Unicode (it holds a lone surrogate).", path: path);
}
