namespace Encryption.Custom.Cosmos.Queries.Sql;

/// <summary>What a token of the Cosmos NoSQL query language is.</summary>
internal enum SqlTokenKind
{
    /// <summary>The end of the text.</summary>
    End,

    /// <summary>A name (<c>c</c>, <c>ssn</c>, <c>SELECT</c>): keywords are identifiers the parser recognises by text.</summary>
    Identifier,

    /// <summary>A parameter, <c>@name</c>.</summary>
    Parameter,

    /// <summary>A number literal (decimal, with fraction or exponent, or hexadecimal).</summary>
    Number,

    /// <summary>A string literal in single or double quotes; <see cref="SqlToken.Value"/> holds it unescaped.</summary>
    String,

    /// <summary>An operator or punctuation (<c>=</c>, <c>??</c>, <c>(</c>, <c>.</c>, ...).</summary>
    Symbol,
}
