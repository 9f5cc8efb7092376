using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Tokens;

namespace Encryption.Custom.Json.Rules;

// The plan's query tokens (docs/wire-format.md "Query tokens"): per path its declaration, and where a document's
// tokens go in one buffer, so the stream processor computes them beside each cell and writes "_q" before the envelope.
internal sealed partial class EncryptionPlan
{
    // Per path, its query-token declaration; null when no path has one.
    private readonly QueryTokenRule?[]? _queryTokens;
    private readonly IReadOnlyList<QueryTokenRule?>? _queryTokenSource;
    private readonly int[] _queryTokenOffsets;

    /// <summary>Whether any path carries query tokens (documents then hold <c>_q</c> and <c>crit</c> names <c>qt</c>).</summary>
    public bool HasQueryTokens => _queryTokens is not null;

    /// <summary>The raw bytes of every path's tokens of one document, laid out path after path.</summary>
    public int QueryTokenBytes { get; }

    /// <summary>The most bytes the <c>"_q":{...},</c> member takes (every token path with a value).</summary>
    public int QueryTokenMemberLength { get; }

    /// <summary>Where the tokens of the path at <paramref name="index"/> start in a buffer of <see cref="QueryTokenBytes"/>.</summary>
    public int GetQueryTokenOffset(int index) => _queryTokenOffsets[index];

    /// <summary>The query-token declaration of the path at <paramref name="index"/>, or <see langword="null"/>.</summary>
    public QueryTokenRule? GetQueryTokens(int index) => _queryTokens?[index];

    // The declarations per path in the plan's order (the policy's compiled rules): top-level paths and nested selectors
    // outside arrays (one value per document each; the policy refuses the others).
    private static QueryTokenRule?[]? CheckQueryTokens(IReadOnlyList<QueryTokenRule?>? queryTokens, string[] paths, string dataEncryptionKeyId)
    {
        if (queryTokens is null)
        {
            return null;
        }

        if (queryTokens.Count != paths.Length)
        {
            JsonErrors.ThrowInvalidOptions("The query-token declarations do not match the paths to encrypt.", dataEncryptionKeyId);
        }

        QueryTokenRule?[] tokens = [.. queryTokens];
        for (int i = 0; i < tokens.Length; i++)
        {
            if (tokens[i] is { } rule && rule.Path != paths[i])
            {
                JsonErrors.ThrowInvalidPath(paths[i], "the query-token declaration names another path.");
            }
        }

        return tokens;
    }

    // Offsets of each path's tokens, the bytes of all of them, and the longest "_q":{...}, member.
    private static (int[] Offsets, int Bytes, int MemberLength) LayOutQueryTokens(QueryTokenRule?[]? queryTokens, int pathCount)
    {
        int[] offsets = new int[pathCount];
        int bytes = 0;
        int memberLength = 8; // "_q":{ and },
        for (int i = 0; i < pathCount; i++)
        {
            offsets[i] = bytes;
            if (queryTokens?[i] is { } rule)
            {
                bytes += rule.TokenCount * rule.TokenLength;
                memberLength += rule.QuotedPath.Length + 2 + QueryTokens.ArrayLength(rule);
            }
        }

        return (offsets, bytes, memberLength);
    }
}
