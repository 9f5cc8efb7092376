using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Json;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;
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
    /// <param name="token">The document.</param>
    /// <param name="output">Receives the JSON text.</param>
    /// <param name="maxLength">The longest output allowed (encryption: the limit decryption applies to its input).</param>
    /// <exception cref="EncryptionException">
    /// The text is longer than <paramref name="maxLength"/>, or the document holds a number a double cannot hold,
    /// which Newtonsoft.Json parsed as infinity and would write as the string <c>"Infinity"</c>
    /// (<see cref="EncryptionErrorKind.LimitExceeded"/>).
    /// </exception>
    public static void Write(JToken token, IBufferWriter<byte> output, int maxLength = int.MaxValue)
    {
        ThrowIfNotFinite(token);

        // Written to a pooled buffer first, so that nothing reaches the output when the text is too long.
        using var utf8 = new PooledBufferWriter();
        WriteUtf8(token, utf8);
        if (utf8.WrittenCount > maxLength)
        {
            JsonErrors.ThrowEncryptedDocumentTooLarge(maxLength);
        }

        output.Write(utf8.WrittenSpan);
    }

    /// <summary>Writes compact UTF-8 JSON text of <paramref name="token"/> to <paramref name="utf8"/> (the bytes of <c>token.ToString(Formatting.None)</c>).</summary>
    public static void WriteUtf8(JToken token, PooledBufferWriter utf8)
    {
        using var text = new Utf8BufferTextWriter(utf8);
        using (var writer = new JsonTextWriter(text) { Formatting = Formatting.None, ArrayPool = JsonCharPool.Instance, CloseOutput = false })
        {
            token.WriteTo(writer);
        }

        text.Flush();
    }

    // A number a double cannot hold was parsed as infinity, and Newtonsoft.Json would write it as the string "Infinity".
    // A walk over the First/Next links: no enumerator per container.
    private static void ThrowIfNotFinite(JToken token)
    {
        if (token is JContainer container)
        {
            for (JToken? child = container.First; child is not null; child = child.Next)
            {
                ThrowIfNotFinite(child);
            }
        }
        else if (token.Type == JTokenType.Float && ((JValue)token).Value is double number && !double.IsFinite(number))
        {
            JsonErrors.ThrowNumberBeyondDouble();
        }
    }

    private static JToken? Parse(ReadOnlySpan<byte> utf8, int maxDepth, bool isDocument)
    {
        Utf8Validation.ThrowIfInvalid(utf8);
        ValidateJson(utf8, maxDepth);
        using var text = new PooledCharReader(utf8, s_strictUtf8);
        using var reader = new JsonTextReader(text)
        {
            DateParseHandling = DateParseHandling.None,
            FloatParseHandling = FloatParseHandling.Double,
            MaxDepth = maxDepth,
            ArrayPool = JsonCharPool.Instance,
        };

        try
        {
            if (!reader.Read())
            {
                return null;
            }

            if (isDocument && reader.TokenType != JsonToken.StartObject)
            {
                JsonErrors.ThrowRootNotObject();
            }

            return JToken.ReadFrom(reader, s_loadSettings);
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

    /// <summary>
    /// Refuses what Newtonsoft.Json would accept but is not JSON (RFC 8259), judged by the same reader as the stream
    /// processor: comments, trailing commas, <c>NaN</c>, <c>Infinity</c>, <c>new Date(1)</c>, single quotes,
    /// unquoted names, content after the root.
    /// </summary>
    private static void ValidateJson(ReadOnlySpan<byte> utf8, int maxDepth)
    {
        // One level more than Newtonsoft.Json allows, so that a deep document is still its (LimitExceeded) error.
        var reader = new Utf8JsonReader(utf8, new JsonReaderOptions { MaxDepth = maxDepth + 2, CommentHandling = JsonCommentHandling.Disallow });
        try
        {
            while (reader.Read())
            {
                if (reader.TokenType is JsonTokenType.StartObject or JsonTokenType.StartArray && reader.CurrentDepth > maxDepth)
                {
                    JsonErrors.ThrowTooDeep(maxDepth);
                }
            }
        }
        catch (System.Text.Json.JsonException exception)
        {
            JsonErrors.ThrowMalformed(exception);
        }
    }
}
