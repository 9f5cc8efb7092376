namespace Encryption.Custom.Cosmos.Queries.Sql;

/// <summary>One token: its kind, its value (a string literal unescaped, anything else as written) and where it is.</summary>
/// <param name="Kind">What the token is.</param>
/// <param name="Value">The text of the token; for a string literal, the unescaped content.</param>
/// <param name="Start">The index of its first character in the query text.</param>
/// <param name="End">The index just after its last character.</param>
internal readonly record struct SqlToken(SqlTokenKind Kind, string Value, int Start, int End)
{
    /// <summary>Whether this is the identifier <paramref name="keyword"/>, ignoring case (keywords are case-insensitive).</summary>
    public bool IsKeyword(string keyword) => Kind == SqlTokenKind.Identifier && Value.Equals(keyword, StringComparison.OrdinalIgnoreCase);

    /// <summary>Whether this is the symbol <paramref name="symbol"/>.</summary>
    public bool IsSymbol(string symbol) => Kind == SqlTokenKind.Symbol && Value == symbol;
}
