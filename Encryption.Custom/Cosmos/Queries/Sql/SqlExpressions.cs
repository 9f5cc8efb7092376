namespace Encryption.Custom.Cosmos.Queries.Sql;

/// <summary>A scalar expression; <see cref="Start"/> and <see cref="End"/> locate it in the query text (for rewrites).</summary>
internal abstract record SqlExpression(int Start, int End);

/// <summary>A bare name: an alias bound by <c>FROM</c>/<c>JOIN</c> (or an unbound name, which the guard cannot attribute).</summary>
internal sealed record SqlName(string Name, int Start, int End) : SqlExpression(Start, End);

/// <summary><c>target.name</c> or <c>target["name"]</c> (<paramref name="Bracketed"/>): the name is unescaped.</summary>
internal sealed record SqlMember(SqlExpression Target, string Name, bool Bracketed, int Start, int End) : SqlExpression(Start, End);

/// <summary><c>target[index]</c> with an index that is not a string literal (a number, a parameter, any expression).</summary>
internal sealed record SqlIndexer(SqlExpression Target, SqlExpression Index, int Start, int End) : SqlExpression(Start, End);

/// <summary>A parameter, <c>@name</c>.</summary>
internal sealed record SqlParameterReference(string Name, int Start, int End) : SqlExpression(Start, End);

/// <summary>A string, number, boolean, <c>null</c> or <c>undefined</c> literal.</summary>
internal sealed record SqlLiteral(SqlLiteralKind Kind, string Text, int Start, int End) : SqlExpression(Start, End);

/// <summary>A prefix operator: <c>-</c>, <c>+</c>, <c>~</c> or <c>NOT</c>.</summary>
internal sealed record SqlUnary(string Operator, SqlExpression Operand, int Start, int End) : SqlExpression(Start, End);

/// <summary>A binary operator (upper-case for keywords: <c>AND</c>, <c>OR</c>); <c>??</c> and <c>||</c> included.</summary>
internal sealed record SqlBinary(string Operator, SqlExpression Left, SqlExpression Right, int Start, int End) : SqlExpression(Start, End);

/// <summary><c>value [NOT] BETWEEN low AND high</c>.</summary>
internal sealed record SqlBetween(SqlExpression Value, SqlExpression Low, SqlExpression High, bool Negated, int Start, int End) : SqlExpression(Start, End);

/// <summary><c>value [NOT] IN (items)</c>.</summary>
internal sealed record SqlIn(SqlExpression Value, IReadOnlyList<SqlExpression> Items, bool Negated, int Start, int End) : SqlExpression(Start, End);

/// <summary><c>value [NOT] LIKE pattern [ESCAPE escape]</c>.</summary>
internal sealed record SqlLike(SqlExpression Value, SqlExpression Pattern, SqlExpression? Escape, bool Negated, int Start, int End) : SqlExpression(Start, End);

/// <summary><c>condition ? whenTrue : whenFalse</c>.</summary>
internal sealed record SqlConditional(SqlExpression Condition, SqlExpression WhenTrue, SqlExpression WhenFalse, int Start, int End) : SqlExpression(Start, End);

/// <summary>A function call; <paramref name="IsUserDefined"/> for <c>udf.name(...)</c>.</summary>
internal sealed record SqlCall(string Name, bool IsUserDefined, IReadOnlyList<SqlExpression> Arguments, int Start, int End) : SqlExpression(Start, End);

/// <summary><c>[a, b, ...]</c>.</summary>
internal sealed record SqlArrayLiteral(IReadOnlyList<SqlExpression> Items, int Start, int End) : SqlExpression(Start, End);

/// <summary><c>{"name": value, ...}</c> (names unescaped).</summary>
internal sealed record SqlObjectLiteral(IReadOnlyList<SqlObjectProperty> Properties, int Start, int End) : SqlExpression(Start, End);

/// <summary>One property of an object literal.</summary>
internal sealed record SqlObjectProperty(string Name, SqlExpression Value);

/// <summary>A subquery used as a value: <c>(SELECT ...)</c>, <c>EXISTS(SELECT ...)</c> or <c>ARRAY(SELECT ...)</c>.</summary>
internal sealed record SqlSubquery(SqlSubqueryKind Kind, SqlQuery Query, int Start, int End) : SqlExpression(Start, End);

/// <summary>The kinds of literal.</summary>
internal enum SqlLiteralKind
{
    /// <summary>A string (the text is unescaped).</summary>
    String,

    /// <summary>A number, as written.</summary>
    Number,

    /// <summary><c>true</c> or <c>false</c>.</summary>
    Boolean,

    /// <summary><c>null</c>.</summary>
    Null,

    /// <summary><c>undefined</c>.</summary>
    Undefined,
}

/// <summary>How a subquery is used.</summary>
internal enum SqlSubqueryKind
{
    /// <summary><c>(SELECT ...)</c>: its single value.</summary>
    Scalar,

    /// <summary><c>EXISTS(SELECT ...)</c>.</summary>
    Exists,

    /// <summary><c>ARRAY(SELECT ...)</c>.</summary>
    Array,
}
