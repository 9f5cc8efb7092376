using Encryption.Custom.Cosmos.Queries.Sql;

namespace Encryption.Custom.Tests.Cosmos.Queries.Sql;

/// <summary>The tokenizer and parser over the Cosmos NoSQL grammar: what parses, into what, and what does not.</summary>
public sealed class SqlParserTests
{
    [Theory]
    [InlineData("SELECT * FROM c")]
    [InlineData("select * from c where c.a = 1")]
    [InlineData("SELECT VALUE c FROM c")]
    [InlineData("SELECT DISTINCT VALUE c.a FROM c")]
    [InlineData("SELECT TOP 10 c.a, c.b AS bee, c.c cee FROM c")]
    [InlineData("SELECT TOP @n * FROM c")]
    [InlineData("SELECT 1")]
    [InlineData("SELECT VALUE COUNT(1) FROM c")]
    [InlineData("SELECT * FROM root r")]
    [InlineData("SELECT * FROM c AS d")]
    [InlineData("SELECT * FROM c.card s WHERE s = @p")]
    [InlineData("SELECT * FROM c[\"card\"] s")]
    [InlineData("SELECT * FROM t IN c.tags")]
    [InlineData("SELECT c.id FROM c JOIN t IN c.tags JOIN u IN t.items WHERE u.x = 1")]
    [InlineData("SELECT c.id FROM c JOIN (SELECT VALUE c.card) s WHERE s = @p")]
    [InlineData("SELECT c.id FROM c JOIN (SELECT VALUE t FROM t IN c.tags WHERE t = 'a') s")]
    [InlineData("SELECT * FROM (SELECT VALUE c FROM c) d")]
    [InlineData("SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = 'a')")]
    [InlineData("SELECT ARRAY(SELECT VALUE t FROM t IN c.tags) AS tags FROM c")]
    [InlineData("SELECT (SELECT VALUE COUNT(1) FROM t IN c.tags) AS n FROM c")]
    [InlineData("SELECT * FROM c WHERE c.a BETWEEN 1 AND 5 AND c.b NOT BETWEEN @x AND @y")]
    [InlineData("SELECT * FROM c WHERE c.a IN (1, 'x', @p, null) AND c.b NOT IN ()")]
    [InlineData("SELECT * FROM c WHERE c.a LIKE 'x%' AND c.b NOT LIKE '50!%' ESCAPE '!'")]
    [InlineData("SELECT * FROM c WHERE NOT c.a AND NOT (c.b OR c.c)")]
    [InlineData("SELECT c.a ?? c.b AS x, c.c ? 1 : 2 AS y, c.d || 'x' AS z FROM c")]
    [InlineData("SELECT (1 | 2) ^ (3 & 4) << 1 >> 2 >>> 3, ~5, -c.a, +c.b, c.a * 2 / 3 % 4 - 1 + 2 FROM c")]
    [InlineData("SELECT * FROM c WHERE c.a != 1 AND c.b <> 2 AND c.c < 3 AND c.d <= 4 AND c.e > 5 AND c.f >= 6")]
    [InlineData("SELECT udf.tax(c.income), ST_DISTANCE(c.a, {\"type\": \"Point\", coordinates: [1, 2]}) FROM c")]
    [InlineData("SELECT c[\"a b\"], c['it\\'s'], c[\"\\u0073sn\"], c.items[0], c.items[@i] FROM c")]
    [InlineData("SELECT * FROM c WHERE c.a = undefined OR c.b = true OR c.c = false OR c.d = null")]
    [InlineData("SELECT * FROM c WHERE c.a = 1.5e3 OR c.b = 0x1F OR c.c = .5")]
    [InlineData("SELECT c.a, COUNT(1) AS n FROM c GROUP BY c.a")]
    [InlineData("SELECT * FROM c ORDER BY c.a DESC, c.b ASC, c.c")]
    [InlineData("SELECT * FROM c OFFSET 10 LIMIT 20")]
    [InlineData("SELECT * FROM c OFFSET @o LIMIT @l")]
    [InlineData("SELECT [c.a, c.b] AS pair, {\"x\": c.a, \"y\": [1, {}]} AS o FROM c")]
    [InlineData("SELECT c.value, c.select, c.from FROM c")]
    public void Parse_TheGrammar_Parses(string text)
    {
        SqlQuery query = SqlParser.Parse(text, out IReadOnlyList<SqlToken> tokens);

        Assert.NotNull(query.Select);
        Assert.Equal(SqlTokenKind.End, tokens[^1].Kind);
    }

    [Theory]
    [InlineData("")]
    [InlineData("SELECT")]
    [InlineData("SELECT * FROM")]
    [InlineData("SELECT * FROM c WHERE")]
    [InlineData("SELECT * FROM c WHERE c.a =")]
    [InlineData("SELECT * FROM c WHERE c.a = 'unterminated")]
    [InlineData("SELECT * FROM c WHERE c.a = '\\q'")]
    [InlineData("SELECT * FROM c WHERE c.a = 1 -- c.ssn")]
    [InlineData("SELECT * FROM c WHERE c.a = 1 /* c.ssn */")]
    [InlineData("SELECT * FROM c WHERE c.a = 1 ORDER c.b")]
    [InlineData("SELECT * FROM c WHERE c.a = 12abc")]
    [InlineData("SELECT * FROM c WHERE c.a = #")]
    [InlineData("SELECT * FROM c WHERE c.a NOT 1")]
    [InlineData("SELECT * FROM c x y")]
    [InlineData("SELECT * FROM c WHERE (c.a = 1")]
    [InlineData("SELECT * FROM c WHERE c.a BETWEEN 1")]
    [InlineData("SELECT * FROM c OFFSET 1")]
    [InlineData("SELECT * FROM c JOIN (SELECT VALUE c.a)")]
    [InlineData("SELECT * FROM c WHERE @ = 1")]
    [InlineData("UPDATE c SET c.a = 1")]
    public void Parse_TextOutsideTheGrammar_Throws(string text)
    {
        Assert.Throws<SqlSyntaxException>(() => SqlParser.Parse(text, out _));
    }

    [Fact]
    public void Parse_Precedence_ComparisonBindsLooserThanArithmeticAndTighterThanLogic()
    {
        SqlQuery query = SqlParser.Parse("SELECT * FROM c WHERE c.a + 1 = @p AND NOT c.b = 2 OR c.c", out _);

        var or = Assert.IsType<SqlBinary>(query.Where);
        Assert.Equal("OR", or.Operator);
        var and = Assert.IsType<SqlBinary>(or.Left);
        Assert.Equal("AND", and.Operator);
        var equality = Assert.IsType<SqlBinary>(and.Left);
        Assert.Equal("=", equality.Operator);
        Assert.Equal("+", Assert.IsType<SqlBinary>(equality.Left).Operator);
        var not = Assert.IsType<SqlUnary>(and.Right);
        Assert.Equal("=", Assert.IsType<SqlBinary>(not.Operand).Operator);
    }

    [Fact]
    public void Parse_TernaryAndCoalesce_AreLoosestAndRightAssociative()
    {
        SqlQuery query = SqlParser.Parse("SELECT VALUE c.a ?? c.b ?? c.c ? 1 : c.d ? 2 : 3 FROM c", out _);

        var conditional = Assert.IsType<SqlConditional>(query.Select.Items[0].Expression);
        var coalesce = Assert.IsType<SqlBinary>(conditional.Condition);
        Assert.Equal("??", coalesce.Operator);
        Assert.Equal("??", Assert.IsType<SqlBinary>(coalesce.Right).Operator);
        Assert.IsType<SqlConditional>(conditional.WhenFalse);
    }

    [Fact]
    public void Parse_BracketedStringsAreUnescapedMembers_OtherIndexesAreIndexers()
    {
        SqlQuery query = SqlParser.Parse("SELECT c[\"\\u0073s\\u006E\"], c['a\\'b'], c.items[0], c[@p] FROM c", out _);

        var escaped = Assert.IsType<SqlMember>(query.Select.Items[0].Expression);
        Assert.Equal("ssn", escaped.Name);
        Assert.True(escaped.Bracketed);
        Assert.Equal("a'b", Assert.IsType<SqlMember>(query.Select.Items[1].Expression).Name);
        Assert.IsType<SqlLiteral>(Assert.IsType<SqlIndexer>(query.Select.Items[2].Expression).Index);
        Assert.IsType<SqlParameterReference>(Assert.IsType<SqlIndexer>(query.Select.Items[3].Expression).Index);
    }

    [Fact]
    public void Parse_FromAndJoinSources_KeepTheirAliasesAndPaths()
    {
        SqlQuery query = SqlParser.Parse("SELECT * FROM c.card s JOIN t IN s.tags JOIN (SELECT VALUE c.x) y JOIN c.items[0] z", out _);

        var from = Assert.IsType<SqlPathCollection>(query.From!.Collection);
        Assert.Equal("c", from.Root);
        Assert.Equal(["card"], from.Segments);
        Assert.Equal("s", query.From.Alias);
        Assert.True(query.Joins[0].Iterates);
        Assert.Equal("t", query.Joins[0].Alias);
        Assert.IsType<SqlSubqueryCollection>(query.Joins[1].Collection);
        Assert.Equal("y", query.Joins[1].Alias);
        Assert.Equal(["items", null], Assert.IsType<SqlPathCollection>(query.Joins[2].Collection).Segments);
    }

    [Fact]
    public void Parse_InBetweenLike_KeepTheirParts()
    {
        SqlQuery query = SqlParser.Parse("SELECT * FROM c WHERE c.a NOT IN (1, @p) AND c.b BETWEEN 1 AND 2 AND c.c NOT LIKE 'x!%' ESCAPE '!'", out _);

        var outer = Assert.IsType<SqlBinary>(query.Where);
        var inner = Assert.IsType<SqlBinary>(outer.Left);
        var list = Assert.IsType<SqlIn>(inner.Left);
        Assert.True(list.Negated);
        Assert.Equal(2, list.Items.Count);
        Assert.IsType<SqlBetween>(inner.Right);
        var like = Assert.IsType<SqlLike>(outer.Right);
        Assert.True(like.Negated);
        Assert.NotNull(like.Escape);
    }

    [Fact]
    public void Tokenize_StringEscapesAndNumbers()
    {
        List<SqlToken> tokens = SqlTokenizer.Tokenize("'a\\\"b\\\\c\\/\\b\\f\\n\\r\\t\\u00e9' 0x1f 1.5E-3 >>> ?? || @p_1");

        Assert.Equal("a\"b\\c/\b\f\n\r\té", tokens[0].Value);
        Assert.Equal(SqlTokenKind.Number, tokens[1].Kind);
        Assert.Equal("1.5E-3", tokens[2].Value);
        Assert.Equal([">>>", "??", "||"], tokens.Skip(3).Take(3).Select(t => t.Value));
        Assert.Equal(SqlTokenKind.Parameter, tokens[6].Kind);
        Assert.Equal("@p_1", tokens[6].Value);
    }

    [Fact]
    public void Parse_NodesSpanTheirText_ParenthesesIncluded()
    {
        const string text = "SELECT * FROM c WHERE (c.a = @p) AND c.b IN (1, 2)";
        SqlQuery query = SqlParser.Parse(text, out _);

        var and = Assert.IsType<SqlBinary>(query.Where);
        Assert.Equal("(c.a = @p)", text[and.Left.Start..and.Left.End]);
        Assert.Equal("c.b IN (1, 2)", text[and.Right.Start..and.Right.End]);
    }
}
