namespace Encryption.Custom.Cosmos.Queries.Sql;

/// <summary>A whole query (or subquery): SELECT, then the optional clauses.</summary>
internal sealed record SqlQuery(
    SqlSelect Select,
    SqlFromSource? From,
    IReadOnlyList<SqlFromSource> Joins,
    SqlExpression? Where,
    IReadOnlyList<SqlExpression> GroupBy,
    IReadOnlyList<SqlOrderItem> OrderBy,
    SqlOffsetLimit? OffsetLimit)
{
    /// <summary>The OFFSET count, or <see langword="null"/> without an OFFSET ... LIMIT clause.</summary>
    public SqlExpression? Offset => OffsetLimit?.Offset;

    /// <summary>The LIMIT count, or <see langword="null"/> without an OFFSET ... LIMIT clause.</summary>
    public SqlExpression? Limit => OffsetLimit?.Limit;
}

/// <summary>
/// The <c>OFFSET n LIMIT m</c> clause: one clause, since the grammar has no OFFSET without LIMIT nor the reverse, so
/// the two counts are present together or not at all.
/// </summary>
internal sealed record SqlOffsetLimit(SqlExpression Offset, SqlExpression Limit);

/// <summary>The SELECT clause: <c>*</c>, <c>VALUE expr</c> or a list of items, with <c>DISTINCT</c> and <c>TOP</c>.</summary>
internal sealed record SqlSelect(bool Distinct, SqlExpression? Top, bool Star, bool Value, IReadOnlyList<SqlSelectItem> Items);

/// <summary>One projected item, with its <c>AS</c> alias if any.</summary>
internal sealed record SqlSelectItem(SqlExpression Expression, string? Alias);

/// <summary>One ORDER BY item.</summary>
internal sealed record SqlOrderItem(SqlExpression Expression, bool Descending);

/// <summary>
/// A source in FROM or JOIN: <c>collection [AS] alias</c>, or <c>alias IN collection</c> (<paramref name="Iterates"/>:
/// the alias stands for each element of the collection's array).
/// </summary>
internal sealed record SqlFromSource(SqlCollection Collection, string? Alias, bool Iterates);

/// <summary>What a FROM/JOIN source reads.</summary>
internal abstract record SqlCollection;

/// <summary>
/// A path from a name: <c>c</c>, <c>root</c>, <c>c.card</c>, <c>c["card"]</c>, <c>c.items[0]</c>. Each segment is
/// a property name or, for a numeric index, <see langword="null"/>.
/// </summary>
internal sealed record SqlPathCollection(string Root, IReadOnlyList<string?> Segments) : SqlCollection;

/// <summary>A subquery as a source: <c>(SELECT VALUE c.card)</c>.</summary>
internal sealed record SqlSubqueryCollection(SqlQuery Query) : SqlCollection;
