using System.Buffers;
using System.Globalization;
using System.Text;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Json.JTokens;

/// <summary>Parses UTF-8 JSON into Newtonsoft.Json tokens with the processor's limits, and writes them back.</summary>
/// <remarks>
/// Settings follow Microsoft's package: dates stay strings (<see cref="DateParseHandling.None"/>), non-integers
/// are doubles. Reader messages are never passed on (they may quote plaintext characters).
/// </remarks>
internal static class JObjectReader
{
    private static readonly UTF8Encoding s_strictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    private static readonly JsonLoadSettings s_loadSettings = new()
    {
        CommentHandling = CommentHandling.Ignore,
        LineInfoHandling = LineInfoHandling.Ignore,
        DuplicatePropertyNameHandling = DuplicatePropertyNameHandling.Error,
    };

    /// <summary>The strict UTF-8 encoding (throws on invalid bytes or lone surrogates).</summary>
    public static UTF8Encoding StrictUtf8 => s_strictUtf8;

    /// <summary>Parses a document whose root must be an object.</summary>
    /// <exception cref="EncryptionException">Malformed, not an object, or too deep.</exception>
    public static JObject ParseObject(ReadOnlySpan<byte> utf8, int maxDepth)
    {
        JToken token = Parse(utf8, maxDepth, isDocument: true) ?? throw new EncryptionException(EncryptionErrorKind.MalformedDocument, "The document is empty.");
        if (token is not JObject document)
        {
            JsonErrors.ThrowRootNotObject();
            return null;
        }

        return document;
    }

    /// <summary>Parses decrypted JSON text (an object or an array at level 2 of its document).</summary>
    /// <returns><see langword="null"/> when the text is not one valid JSON value.</returns>
    /// <exception cref="EncryptionException">Too deep.</exception>
    public static JToken? TryParseValue(ReadOnlySpan<byte> utf8, int maxDepth, int levels)
    {
        try
        {
            return Parse(utf8, maxDepth - levels, isDocument: false);
        }
        catch (EncryptionException exception) when (exception.Kind == EncryptionErrorKind.MalformedDocument)
        {
            return null;
        }
    }

    /// <summary>Writes <paramref name="token"/> as compact UTF-8 JSON.</summary>
    public static void Write(JToken token, IBufferWriter<byte> output)
    {
        string text = token.ToString(Formatting.None);
        Span<byte> span = output.GetSpan(Encoding.UTF8.GetMaxByteCount(text.Length));
        int written = Encoding.UTF8.GetBytes(text, span);
        output.Advance(written);
    }

    /// <summary>Compact UTF-8 JSON text of <paramref name="token"/>.</summary>
    public static byte[] ToUtf8(JToken token) => Encoding.UTF8.GetBytes(token.ToString(Formatting.None));

    private static JToken? Parse(ReadOnlySpan<byte> utf8, int maxDepth, bool isDocument)
    {
        string text;
        try
        {
            text = s_strictUtf8.GetString(utf8);
        }
        catch (DecoderFallbackException)
        {
            throw new EncryptionException(EncryptionErrorKind.MalformedDocument, "The document is not valid UTF-8.");
        }

        using var reader = new JsonTextReader(new StringReader(text))
        {
            DateParseHandling = DateParseHandling.None,
            FloatParseHandling = FloatParseHandling.Double,
            MaxDepth = maxDepth,
        };

        try
        {
            if (!ReadSkippingComments(reader))
            {
                return null;
            }

            if (isDocument && reader.TokenType != JsonToken.StartObject)
            {
                JsonErrors.ThrowRootNotObject();
            }

            JToken token = JToken.ReadFrom(reader, s_loadSettings);
            if (ReadSkippingComments(reader))
            {
                JsonErrors.ThrowMalformed("The document has content after its root value.");
            }

            return token;
        }
        catch (JsonReaderException exception)
        {
            if (exception.Message.StartsWith("The reader's MaxDepth", StringComparison.Ordinal))
            {
                JsonErrors.ThrowTooDeep(maxDepth);
            }

            throw new EncryptionException(
                EncryptionErrorKind.MalformedDocument,
                string.Create(CultureInfo.InvariantCulture, $"The document is not valid JSON (line {exception.LineNumber}, position {exception.LinePosition})."));
        }
    }

    private static bool ReadSkippingComments(JsonTextReader reader)
    {
        while (reader.Read())
        {
            if (reader.TokenType != JsonToken.Comment)
            {
                return true;
            }
        }

        return false;
    }
}
