namespace Encryption.Custom.Cosmos.Queries.Sql;

/// <summary>
/// A recursive-descent parser for the Cosmos NoSQL query language: SELECT (<c>*</c>, <c>VALUE</c>, items with
/// <c>AS</c>, <c>DISTINCT</c>, <c>TOP</c>), FROM (<c>c</c>, <c>c.path alias</c>, <c>x IN c.path</c>, subqueries),
/// JOIN, WHERE, GROUP BY, ORDER BY, OFFSET/LIMIT, and every scalar expression (<see cref="SqlParser"/>'s
/// expression half). It only has to be right about what it accepts: text it does not understand is a
/// <see cref="SqlSyntaxException"/>, and the guard then refuses the query if it mentions a policy property.
/// </summary>
internal sealed partial class SqlParser
{
    // Words that cannot be an alias or a bare name (they start or end a clause, or are operators).
    private static readonly HashSet<string> s_reserved = new(StringComparer.OrdinalIgnoreCase)
    {
        "SELECT", "FROM", "WHERE", "JOIN", "IN", "AS", "VALUE", "DISTINCT", "TOP", "ORDER", "BY", "GROUP", "OFFSET",
        "LIMIT", "ASC", "DESC", "AND", "OR", "NOT", "BETWEEN", "LIKE", "ESCAPE", "EXISTS", "ARRAY", "TRUE", "FALSE",
        "NULL", "UNDEFINED", "UDF",
    };

    private readonly List<SqlToken> _tokens;
    private int _position;

    // How deep the parse is nested now (SqlLimits.MaxDepth): counted where the parser recurses.
    private int _depth;

    private SqlParser(List<SqlToken> tokens)
    {
        _tokens = tokens;
    }

    /// <summary>Parses a whole query.</summary>
    /// <param name="text">The query text.</param>
    /// <param name="tokens">The tokens, for callers that look at what surrounds a node.</param>
    /// <exception cref="SqlSyntaxException">The text is not a query this parser understands.</exception>
    /// <exception cref="NotSupportedException">The text is longer or nests deeper than <see cref="SqlLimits"/> allow.</exception>
    public static SqlQuery Parse(string text, out IReadOnlyList<SqlToken> tokens)
    {
        // The tokenizer is a loop; the length bounds what the parser and the analyzer are given to walk.
        if (text.Length > SqlLimits.MaxTextLength)
        {
            throw SqlLimits.TooLong(text.Length);
        }

        List<SqlToken> list = SqlTokenizer.Tokenize(text);
        var parser = new SqlParser(list);
        SqlQuery query = parser.ParseQuery();
        if (parser.Current.Kind != SqlTokenKind.End)
        {
            throw parser.Error("Unexpected text after the query.");
        }

        SqlDepth.Check(query);
        tokens = list;
        return query;
    }

    private SqlToken Current => _tokens[_position];

    private SqlToken Previous => _tokens[_position - 1];

    // Entered where the parser recurses; left on the way out (a refusal abandons the parser).
    private void Enter()
    {
        if (++_depth > SqlLimits.MaxDepth)
        {
            throw SqlLimits.TooDeep();
        }
    }

    private void Leave() => _depth--;

    private SqlQuery ParseQuery()
    {
        Enter();
        SqlQuery query = ParseQueryClauses();
        Leave();
        return query;
    }

    private SqlQuery ParseQueryClauses()
    {
        SqlSelect select = ParseSelect();
        SqlFromSource? from = null;
        var joins = new List<SqlFromSource>();
        if (TryKeyword("FROM"))
        {
            from = ParseFromSource(first: true);
            while (TryKeyword("JOIN"))
            {
                joins.Add(ParseFromSource(first: false));
            }
        }

        SqlExpression? where = TryKeyword("WHERE") ? ParseExpression() : null;
        var groupBy = new List<SqlExpression>();
        if (TryKeyword("GROUP"))
        {
            ExpectKeyword("BY");
            do
            {
                groupBy.Add(ParseExpression());
            }
            while (TrySymbol(","));
        }

        var orderBy = new List<SqlOrderItem>();
        if (TryKeyword("ORDER"))
        {
            ExpectKeyword("BY");
            do
            {
                SqlExpression expression = ParseExpression();
                bool descending = TryKeyword("DESC");
                if (!descending)
                {
                    _ = TryKeyword("ASC");
                }

                orderBy.Add(new SqlOrderItem(expression, descending));
            }
            while (TrySymbol(","));
        }

        SqlOffsetLimit? offsetLimit = null;
        if (TryKeyword("OFFSET"))
        {
            SqlExpression offset = ParseCount();
            ExpectKeyword("LIMIT");
            offsetLimit = new SqlOffsetLimit(offset, ParseCount());
        }

        return new SqlQuery(select, from, joins, where, groupBy, orderBy, offsetLimit);
    }

    private SqlSelect ParseSelect()
    {
        ExpectKeyword("SELECT");
        bool distinct = TryKeyword("DISTINCT");
        SqlExpression? top = TryKeyword("TOP") ? ParseCount() : null;
        if (TrySymbol("*"))
        {
            return new SqlSelect(distinct, top, Star: true, Value: false, []);
        }

        if (TryKeyword("VALUE"))
        {
            return new SqlSelect(distinct, top, Star: false, Value: true, [new SqlSelectItem(ParseExpression(), null)]);
        }

        var items = new List<SqlSelectItem>();
        do
        {
            SqlExpression expression = ParseExpression();
            string? alias = TryKeyword("AS") ? ExpectAlias() : TryAlias();
            items.Add(new SqlSelectItem(expression, alias));
        }
        while (TrySymbol(","));

        return new SqlSelect(distinct, top, Star: false, Value: false, items);
    }

    // TOP, OFFSET and LIMIT take a number or a parameter.
    private SqlExpression ParseCount()
    {
        SqlToken token = Current;
        if (token.Kind == SqlTokenKind.Number)
        {
            _position++;
            return new SqlLiteral(SqlLiteralKind.Number, token.Value, token.Start, token.End);
        }

        if (token.Kind == SqlTokenKind.Parameter)
        {
            _position++;
            return new SqlParameterReference(token.Value, token.Start, token.End);
        }

        throw Error("Expected a number or a parameter.");
    }

    private SqlFromSource ParseFromSource(bool first)
    {
        // "alias IN collection" iterates an array.
        if (Current.Kind == SqlTokenKind.Identifier && !s_reserved.Contains(Current.Value) && _tokens[_position + 1].IsKeyword("IN"))
        {
            string alias = Current.Value;
            _position += 2;
            return new SqlFromSource(ParseCollection(), alias, Iterates: true);
        }

        SqlCollection collection = ParseCollection();
        string? named = TryKeyword("AS") ? ExpectAlias() : TryAlias();
        if (named is null && collection is SqlPathCollection path)
        {
            // Without an alias the source is known by its last property name (or its root name).
            named = path.Segments.Count == 0 ? path.Root : path.Segments[^1];
        }

        return named is null && !first
            ? throw Error("A joined subquery needs an alias.")
            : new SqlFromSource(collection, named, Iterates: false);
    }

    private SqlCollection ParseCollection()
    {
        if (TrySymbol("("))
        {
            SqlQuery query = ParseQuery();
            ExpectSymbol(")");
            return new SqlSubqueryCollection(query);
        }

        string root = ExpectAlias();
        var segments = new List<string?>();
        while (true)
        {
            if (TrySymbol("."))
            {
                segments.Add(ExpectName());
            }
            else if (TrySymbol("["))
            {
                SqlToken token = Current;
                if (token.Kind is SqlTokenKind.String)
                {
                    segments.Add(token.Value);
                }
                else if (token.Kind is SqlTokenKind.Number)
                {
                    segments.Add(null);
                }
                else
                {
                    throw Error("Expected a property name or an index.");
                }

                _position++;
                ExpectSymbol("]");
            }
            else
            {
                return new SqlPathCollection(root, segments);
            }
        }
    }

    private bool TryKeyword(string keyword)
    {
        if (Current.IsKeyword(keyword))
        {
            _position++;
            return true;
        }

        return false;
    }

    private void ExpectKeyword(string keyword)
    {
        if (!TryKeyword(keyword))
        {
            throw Error($"Expected {keyword}.");
        }
    }

    private bool TrySymbol(string symbol)
    {
        if (Current.IsSymbol(symbol))
        {
            _position++;
            return true;
        }

        return false;
    }

    private void ExpectSymbol(string symbol)
    {
        if (!TrySymbol(symbol))
        {
            throw Error($"Expected '{symbol}'.");
        }
    }

    private string? TryAlias()
    {
        if (Current.Kind == SqlTokenKind.Identifier && !s_reserved.Contains(Current.Value))
        {
            return _tokens[_position++].Value;
        }

        return null;
    }

    private string ExpectAlias() => TryAlias() ?? throw Error("Expected a name.");

    // After '.', any word is a property name (keywords included).
    private string ExpectName() =>
        Current.Kind == SqlTokenKind.Identifier ? _tokens[_position++].Value : throw Error("Expected a property name.");

    private SqlSyntaxException Error(string message) => new(message, Current.Start);
}
