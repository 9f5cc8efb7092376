namespace Encryption.Custom.Cosmos.Queries.Sql;

/// <summary>
/// Scalar expressions, loosest binding first: <c>?:</c>, <c>??</c>, <c>OR</c>, <c>AND</c>, <c>NOT</c>,
/// comparisons with <c>[NOT] IN</c>/<c>BETWEEN</c>/<c>LIKE</c>, <c>|</c>, <c>^</c>, <c>&amp;</c>, shifts,
/// <c>+ - ||</c>, <c>* / %</c>, prefix <c>- + ~</c>, then primaries with <c>.name</c> and <c>[...]</c>.
/// </summary>
/// <remarks>
/// Where the service's precedence of an operator is not documented the guard does not rely on this order: an
/// allowed comparison must be delimited by tokens that leave no doubt (see the query analyzer).
/// </remarks>
internal sealed partial class SqlParser
{
    private static readonly string[] s_comparisons = ["=", "!=", "<>", "<", "<=", ">", ">="];

    private SqlExpression ParseExpression()
    {
        Enter();
        SqlExpression condition = ParseCoalesce();
        if (TrySymbol("?"))
        {
            SqlExpression whenTrue = ParseExpression();
            ExpectSymbol(":");
            SqlExpression whenFalse = ParseExpression();
            condition = new SqlConditional(condition, whenTrue, whenFalse, condition.Start, whenFalse.End);
        }

        Leave();
        return condition;
    }

    private SqlExpression ParseCoalesce()
    {
        SqlExpression left = ParseOr();
        if (!TrySymbol("??"))
        {
            return left;
        }

        Enter();
        SqlExpression right = ParseCoalesce();
        Leave();
        return new SqlBinary("??", left, right, left.Start, right.End);
    }

    private SqlExpression ParseOr()
    {
        SqlExpression first = ParseAnd();
        if (!Current.IsKeyword("OR"))
        {
            return first;
        }

        var operands = new List<SqlExpression> { first };
        while (TryKeyword("OR"))
        {
            operands.Add(ParseAnd());
        }

        return Balanced("OR", operands, 0, operands.Count);
    }

    private SqlExpression ParseAnd()
    {
        SqlExpression first = ParseNot();
        if (!Current.IsKeyword("AND"))
        {
            return first;
        }

        var operands = new List<SqlExpression> { first };
        while (TryKeyword("AND"))
        {
            operands.Add(ParseNot());
        }

        return Balanced("AND", operands, 0, operands.Count);
    }

    // A flat chain of AND (or OR) as a balanced tree: the operators are associative in the service's three-valued
    // logic, so the grouping does not change the result, and the tree stays log2(n) deep for the walks that
    // follow (a chain of 12,000 terms read left-deep overflowed the analyzer's stack). Each node spans the text of
    // its operands, so a rewrite of any comparison in it keeps the text balanced.
    private static SqlExpression Balanced(string op, List<SqlExpression> operands, int start, int end)
    {
        if (end - start == 1)
        {
            return operands[start];
        }

        int middle = start + ((end - start + 1) / 2); // the larger half left, as a left-deep reading groups three
        SqlExpression left = Balanced(op, operands, start, middle);
        SqlExpression right = Balanced(op, operands, middle, end);
        return new SqlBinary(op, left, right, left.Start, right.End);
    }

    private SqlExpression ParseNot()
    {
        if (Current.IsKeyword("NOT"))
        {
            int start = Current.Start;
            _position++;
            Enter();
            SqlExpression operand = ParseNot();
            Leave();
            return new SqlUnary("NOT", operand, start, operand.End);
        }

        return ParseComparison();
    }

    private SqlExpression ParseComparison()
    {
        SqlExpression left = ParseBinary(0);
        while (true)
        {
            if (Current.Kind == SqlTokenKind.Symbol && Array.IndexOf(s_comparisons, Current.Value) >= 0)
            {
                string op = _tokens[_position++].Value;
                SqlExpression right = ParseBinary(0);
                left = new SqlBinary(op, left, right, left.Start, right.End);
                continue;
            }

            bool negated = Current.IsKeyword("NOT")
                && (_tokens[_position + 1].IsKeyword("IN") || _tokens[_position + 1].IsKeyword("LIKE") || _tokens[_position + 1].IsKeyword("BETWEEN"));
            if (negated)
            {
                _position++;
            }

            if (TryKeyword("IN"))
            {
                ExpectSymbol("(");
                var items = new List<SqlExpression>();
                if (!Current.IsSymbol(")"))
                {
                    do
                    {
                        items.Add(ParseExpression());
                    }
                    while (TrySymbol(","));
                }

                ExpectSymbol(")");
                left = new SqlIn(left, items, negated, left.Start, Previous.End);
            }
            else if (TryKeyword("BETWEEN"))
            {
                SqlExpression low = ParseBinary(0);
                ExpectKeyword("AND");
                SqlExpression high = ParseBinary(0);
                left = new SqlBetween(left, low, high, negated, left.Start, high.End);
            }
            else if (TryKeyword("LIKE"))
            {
                SqlExpression pattern = ParseBinary(0);
                SqlExpression? escape = TryKeyword("ESCAPE") ? ParseBinary(0) : null;
                left = new SqlLike(left, pattern, escape, negated, left.Start, (escape ?? pattern).End);
            }
            else if (negated)
            {
                throw Error("Expected IN, LIKE or BETWEEN after NOT.");
            }
            else
            {
                return left;
            }
        }
    }

    // Binary operators above the comparisons, loosest first.
    private static readonly string[][] s_binaryLevels =
    [
        ["|"],
        ["^"],
        ["&"],
        ["<<", ">>", ">>>"],
        ["+", "-", "||"],
        ["*", "/", "%"],
    ];

    private SqlExpression ParseBinary(int level)
    {
        if (level == s_binaryLevels.Length)
        {
            return ParseUnary();
        }

        SqlExpression left = ParseBinary(level + 1);
        while (Current.Kind == SqlTokenKind.Symbol && Array.IndexOf(s_binaryLevels[level], Current.Value) >= 0)
        {
            string op = _tokens[_position++].Value;
            SqlExpression right = ParseBinary(level + 1);
            left = new SqlBinary(op, left, right, left.Start, right.End);
        }

        return left;
    }

    private SqlExpression ParseUnary()
    {
        if (Current.Kind == SqlTokenKind.Symbol && Current.Value is "-" or "+" or "~")
        {
            SqlToken op = _tokens[_position++];
            Enter();
            SqlExpression operand = ParseUnary();
            Leave();
            return new SqlUnary(op.Value, operand, op.Start, operand.End);
        }

        return ParsePostfix(ParsePrimary());
    }

    private SqlExpression ParsePostfix(SqlExpression target)
    {
        while (true)
        {
            if (TrySymbol("."))
            {
                string name = ExpectName();
                target = new SqlMember(target, name, Bracketed: false, target.Start, Previous.End);
            }
            else if (TrySymbol("["))
            {
                SqlExpression index = ParseExpression();
                ExpectSymbol("]");
                target = index is SqlLiteral { Kind: SqlLiteralKind.String } name
                    ? new SqlMember(target, name.Text, Bracketed: true, target.Start, Previous.End)
                    : new SqlIndexer(target, index, target.Start, Previous.End);
            }
            else
            {
                return target;
            }
        }
    }

    private SqlExpression ParsePrimary()
    {
        SqlToken token = Current;
        switch (token.Kind)
        {
            case SqlTokenKind.Number:
                _position++;
                return new SqlLiteral(SqlLiteralKind.Number, token.Value, token.Start, token.End);
            case SqlTokenKind.String:
                _position++;
                return new SqlLiteral(SqlLiteralKind.String, token.Value, token.Start, token.End);
            case SqlTokenKind.Parameter:
                _position++;
                return new SqlParameterReference(token.Value, token.Start, token.End);
            case SqlTokenKind.Identifier:
                return ParseWord(token);
            case SqlTokenKind.Symbol when token.Value == "(":
                return ParseParenthesized(token);
            case SqlTokenKind.Symbol when token.Value == "[":
                _position++;
                List<SqlExpression> items = ParseList("]");
                return new SqlArrayLiteral(items, token.Start, Previous.End);
            case SqlTokenKind.Symbol when token.Value == "{":
                _position++;
                return ParseObject(token.Start);
            default:
                throw Error("Expected a value.");
        }
    }

    private SqlExpression ParseWord(SqlToken token)
    {
        SqlLiteralKind? literal = token.Value.ToUpperInvariant() switch
        {
            "TRUE" or "FALSE" => SqlLiteralKind.Boolean,
            "NULL" => SqlLiteralKind.Null,
            "UNDEFINED" => SqlLiteralKind.Undefined,
            _ => null,
        };
        if (literal is SqlLiteralKind kind)
        {
            _position++;
            return new SqlLiteral(kind, token.Value, token.Start, token.End);
        }

        bool call = _tokens[_position + 1].IsSymbol("(");
        if ((token.IsKeyword("EXISTS") || token.IsKeyword("ARRAY")) && call)
        {
            _position += 2;
            SqlQuery query = ParseQuery();
            ExpectSymbol(")");
            return new SqlSubquery(token.IsKeyword("EXISTS") ? SqlSubqueryKind.Exists : SqlSubqueryKind.Array, query, token.Start, Previous.End);
        }

        if (token.IsKeyword("UDF") && _tokens[_position + 1].IsSymbol("."))
        {
            _position += 2;
            string name = ExpectName();
            ExpectSymbol("(");
            return new SqlCall(name, IsUserDefined: true, ParseList(")"), token.Start, Previous.End);
        }

        if (s_reserved.Contains(token.Value))
        {
            throw Error($"Unexpected {token.Value}.");
        }

        _position++;
        if (call)
        {
            _position++;
            return new SqlCall(token.Value, IsUserDefined: false, ParseList(")"), token.Start, Previous.End);
        }

        return new SqlName(token.Value, token.Start, token.End);
    }

    private SqlExpression ParseParenthesized(SqlToken open)
    {
        _position++;
        if (Current.IsKeyword("SELECT"))
        {
            SqlQuery query = ParseQuery();
            ExpectSymbol(")");
            return new SqlSubquery(SqlSubqueryKind.Scalar, query, open.Start, Previous.End);
        }

        // The node spans its parentheses, so that replacing its text keeps the query balanced.
        SqlExpression inner = ParseExpression();
        ExpectSymbol(")");
        return Widen(inner, open.Start, Previous.End);
    }

    private static SqlExpression Widen(SqlExpression expression, int start, int end) => expression with { Start = start, End = end };

    private SqlObjectLiteral ParseObject(int start)
    {
        var properties = new List<SqlObjectProperty>();
        if (!TrySymbol("}"))
        {
            do
            {
                string name = Current.Kind is SqlTokenKind.String or SqlTokenKind.Identifier
                    ? _tokens[_position++].Value
                    : throw Error("Expected a property name.");
                ExpectSymbol(":");
                properties.Add(new SqlObjectProperty(name, ParseExpression()));
            }
            while (TrySymbol(","));

            ExpectSymbol("}");
        }

        return new SqlObjectLiteral(properties, start, Previous.End);
    }

    // Comma-separated expressions up to the closing symbol (consumed).
    private List<SqlExpression> ParseList(string close)
    {
        var items = new List<SqlExpression>();
        if (!TrySymbol(close))
        {
            do
            {
                items.Add(ParseExpression());
            }
            while (TrySymbol(","));

            ExpectSymbol(close);
        }

        return items;
    }
}
