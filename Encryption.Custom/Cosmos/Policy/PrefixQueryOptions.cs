using Encryption.Custom.Json.Tokens;

namespace Encryption.Custom;

/// <summary>
/// Prefix queries (<c>STARTSWITH</c>, LINQ <c>StartsWith</c>) on a path holding strings: the document stores a token
/// for each prefix of <see cref="MinLength"/> to <see cref="MaxLength"/> runes of the value (Unicode NFC, case-folded
/// when <see cref="IgnoreCase"/>), padded to the same count for every value so the count does not reveal the length.
/// </summary>
public sealed class PrefixQueryOptions : QueryTokenOptions
{
    /// <summary>The shortest prefix a query may use, in runes (Unicode scalar values): 1 or more. Default 1.</summary>
    public int MinLength { get; init; } = 1;

    /// <summary>
    /// The longest prefix with its own token, in runes, at most 64. Default 8. A longer query prefix is served by the
    /// token of its first <see cref="MaxLength"/> runes and settled by the client's re-check.
    /// </summary>
    public int MaxLength { get; init; } = 8;

    /// <summary>
    /// Whether tokens are case-folded (invariant simple lower-case mapping), so that case-insensitive
    /// <c>STARTSWITH(c.x, @p, true)</c> can be served. Default <see langword="false"/>: folded tokens also make
    /// values differing only in case share tokens.
    /// </summary>
    public bool IgnoreCase { get; init; }

    internal override QueryTokenRule Compile(string path) => QueryTokenRule.ForPrefix(path, MinLength, MaxLength, IgnoreCase, TokenLength);
}
