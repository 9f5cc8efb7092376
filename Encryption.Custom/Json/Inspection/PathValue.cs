using System.Text.Json;
using Encryption.Custom.Json.Rules;

namespace Encryption.Custom.Json.Inspection;

/// <summary>
/// The one value a path outside arrays names in a stored document's bytes (a nested selector such as
/// <c>/address/zip</c>), found as the processors' selector walks find it: every segment an exact name of an object on
/// the way. One reader over the raw document, so both inspectors ask the same question of the same bytes.
/// </summary>
internal static class PathValue
{
    /// <summary>What the path holds.</summary>
    internal enum Kind
    {
        /// <summary>Nothing: an object on the way is missing or is not an object, or the value is <c>null</c>.</summary>
        None,

        /// <summary>A string (a cell, when the document lists the path): its unescaped UTF-8 is given.</summary>
        String,

        /// <summary>Any other value, which no cell is.</summary>
        Other,
    }

    /// <summary>Finds <paramref name="path"/>'s value in <paramref name="document"/> (a scanned, valid JSON object).</summary>
    /// <param name="document">The stored document.</param>
    /// <param name="path">The path; no segment is the array wildcard.</param>
    /// <param name="maxDepth">The document's depth limit (the scan checked it).</param>
    /// <param name="text">For <see cref="Kind.String"/>, the unescaped string.</param>
    public static Kind Find(ReadOnlySpan<byte> document, RulePath path, int maxDepth, out byte[]? text)
    {
        text = null;
        var reader = new Utf8JsonReader(document, new JsonReaderOptions { MaxDepth = maxDepth + 1 });
        reader.Read();
        foreach (string segment in path.Segments)
        {
            if (reader.TokenType != JsonTokenType.StartObject || !MoveToMember(ref reader, segment))
            {
                return Kind.None;
            }
        }

        switch (reader.TokenType)
        {
            case JsonTokenType.Null:
                return Kind.None;
            case JsonTokenType.String:
                // A cell: base64 text, public; unescaped (the stored form may escape '+' and '/').
                byte[] buffer = new byte[reader.HasValueSequence ? reader.ValueSequence.Length : reader.ValueSpan.Length];
                int written = reader.CopyString(buffer);
                text = written == buffer.Length ? buffer : buffer[..written];
                return Kind.String;
            default:
                return Kind.Other;
        }
    }

    // From an object's start to the value of its member named exactly segment (false when it has none).
    private static bool MoveToMember(ref Utf8JsonReader reader, string segment)
    {
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            bool match = reader.ValueTextEquals(segment);
            reader.Read();
            if (match)
            {
                return true;
            }

            reader.Skip();
        }

        return false;
    }
}
