using Encryption.Custom.Cosmos.Queries;
using Encryption.Custom.Cosmos.Queries.Sql;

namespace Encryption.Custom.Tests.Cosmos.Queries.Sql;

/// <summary>
/// Between tokens the tokenizer skips what Cosmos DB's grammar skips (space, tab, CR, LF: the bundled endpoint's
/// parser agrees) and nothing else (issue 32): every other character .NET calls white space is outside the language.
/// </summary>
public sealed class SqlWhiteSpaceTests
{
    [Fact]
    public void OnlySpaceTabCrLf_SeparateTokens_EveryOtherWhiteSpaceCharacterIsRefused()
    {
        foreach (char c in new[] { ' ', '\t', '\r', '\n' })
        {
            Assert.Equal(6, SqlTokenizer.Tokenize($"c.ssn{c}={c}@p").Count);
        }

        // Every UTF-16 code unit .NET counts as white space, checked exhaustively: 25, of which 21 are not the four above.
        int others = 0;
        for (int code = 0; code <= char.MaxValue; code++)
        {
            char c = (char)code;
            if (char.IsWhiteSpace(c) && c is not (' ' or '\t' or '\r' or '\n'))
            {
                others++;
                Assert.Throws<SqlSyntaxException>(() => SqlTokenizer.Tokenize($"c.ssn{c}= @p"));
            }
        }

        Assert.Equal(21, others);
    }

    [Theory]
    [InlineData('\v')]
    [InlineData('\f')]
    [InlineData('\u2028')]
    [InlineData('\u00a0')]
    public void AQueryWithOtherWhiteSpace_IsRefusedWhenItNamesAPolicyPath(char separator)
    {
        var paths = new QueryPolicyPaths(QueryGuardTests.Policy);

        Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze($"SELECT * FROM c WHERE{separator}c.ssn = @p", paths));
        Assert.Empty(QueryGuard.Analyze($"SELECT * FROM c WHERE{separator}c.name = @p", paths)); // sent untouched: the service judges it
    }
}
