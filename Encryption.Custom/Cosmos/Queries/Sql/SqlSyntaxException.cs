namespace Encryption.Custom.Cosmos.Queries.Sql;

/// <summary>
/// The text is not a query this parser understands. Never shown to the caller as is: the guard decides from it
/// whether to refuse the query (it mentions a policy property) or to send it untouched (docs/queries.md).
/// </summary>
internal sealed class SqlSyntaxException : Exception
{
    public SqlSyntaxException(string message, int position)
        : base(message)
    {
        Position = position;
    }

    public SqlSyntaxException()
    {
    }

    public SqlSyntaxException(string message)
        : base(message)
    {
    }

    public SqlSyntaxException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Where in the text the parser stopped.</summary>
    public int Position { get; }
}
