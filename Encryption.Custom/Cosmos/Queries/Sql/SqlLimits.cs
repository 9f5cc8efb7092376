namespace Encryption.Custom.Cosmos.Queries.Sql;

/// <summary>
/// How large and how deeply nested a query the guard reads (docs/queries.md, "Limits"). The tokenizer, parser and
/// analyzer walk the text and its tree on the thread's stack; without a bound a query of a few thousand nested
/// parentheses would end the process with a stack overflow, which no caller can catch. Beyond a limit the query
/// is refused before anything is sent, with a <see cref="NotSupportedException"/> naming the limit.
/// </summary>
internal static class SqlLimits
{
    /// <summary>The longest query text, in characters: Cosmos DB's own limit on a query's text (512 KB).</summary>
    public const int MaxTextLength = 512 * 1024;

    /// <summary>
    /// How deep expressions and subqueries may nest: parentheses, brackets, function arguments, subqueries,
    /// prefix operators, and chains of an operator that is not associative (<c>a - b - c</c>, <c>c.a.b.c</c>).
    /// A flat chain of <c>AND</c> or <c>OR</c> is read as a balanced tree and stays shallow at any length.
    /// </summary>
    public const int MaxDepth = 128;

    /// <summary>The refusal of a text longer than <see cref="MaxTextLength"/>.</summary>
    public static NotSupportedException TooLong(int length) =>
        new($"The query text has {length} characters; the encryption container reads queries of at most {MaxTextLength} characters (Cosmos DB's own limit on a query's text), so it is refused before sending (docs/queries.md, \"Limits\").");

    /// <summary>The refusal of a query nested deeper than <see cref="MaxDepth"/>.</summary>
    public static NotSupportedException TooDeep() =>
        new($"The query nests expressions more than {MaxDepth} levels deep (parentheses, brackets, function arguments, subqueries, prefix operators or a chain of one operator other than AND/OR); the encryption container reads queries nested at most {MaxDepth} levels, so it is refused before sending (docs/queries.md, \"Limits\").");
}
