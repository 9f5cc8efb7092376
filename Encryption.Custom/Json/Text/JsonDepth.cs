using System.Text.Json;
using Encryption.Custom.Json.Errors;

namespace Encryption.Custom.Json.Text;

/// <summary>
/// Skips values while enforcing the configured depth limit ourselves, so that a deep document is reported as
/// <see cref="EncryptionErrorKind.LimitExceeded"/> rather than as a reader syntax error.
/// </summary>
/// <remarks>
/// Levels count the document's root object as 1. <c>levelOffset</c> maps the reader's depth to that count: 0 for
/// a document read on its own, -2 for a document inside a feed page's <c>Documents</c> array, +1 for the JSON text
/// of an encrypted object or array (which sits at level 2 of its document). A container whose reader depth is
/// <c>d</c> is at level <c>d + 1 + levelOffset</c>.
/// </remarks>
internal static class JsonDepth
{
    /// <summary>Reader options whose own depth check never fires before ours.</summary>
    public static JsonReaderOptions ReaderOptions(int maxDepth, int levelOffset) =>
        new() { MaxDepth = Math.Max(maxDepth - levelOffset, 0) + 1, CommentHandling = JsonCommentHandling.Disallow };

    /// <summary>Throws when the container the reader is on is deeper than allowed.</summary>
    public static void Check(int readerDepth, int maxDepth, int levelOffset)
    {
        if (readerDepth + levelOffset >= maxDepth)
        {
            JsonErrors.ThrowTooDeep(maxDepth);
        }
    }

    /// <summary>Moves past the value the reader is on (a scalar needs no move).</summary>
    public static void SkipValue(ref Utf8JsonReader reader, int maxDepth, int levelOffset)
    {
        if (reader.TokenType is JsonTokenType.StartObject or JsonTokenType.StartArray)
        {
            SkipContainer(ref reader, maxDepth, levelOffset);
        }
    }

    /// <summary>Moves from a start token to its matching end token, checking the depth of every nested container.</summary>
    public static void SkipContainer(ref Utf8JsonReader reader, int maxDepth, int levelOffset)
    {
        int depth = reader.CurrentDepth;
        Check(depth, maxDepth, levelOffset);
        int limit = maxDepth - levelOffset;
        while (reader.Read())
        {
            JsonTokenType type = reader.TokenType;
            if (type is JsonTokenType.StartObject or JsonTokenType.StartArray)
            {
                if (reader.CurrentDepth >= limit)
                {
                    JsonErrors.ThrowTooDeep(maxDepth);
                }
            }
            else if (type is JsonTokenType.EndObject or JsonTokenType.EndArray && reader.CurrentDepth == depth)
            {
                return;
            }
        }
    }
}
