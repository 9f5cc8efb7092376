using Encryption.Custom.Cosmos.Queries;
using Encryption.Custom.Cosmos.Queries.Analysis;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Queries;

/// <summary>The one query check: what is allowed on policy paths, what is refused (naming the path), and the rewrite of allowed comparisons.</summary>
public sealed class QueryGuardTests
{
    internal static readonly ContainerEncryptionPolicy Policy = new(
        "dek",
        [
            new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/age") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/notes"),
            new EncryptionPolicyIncludedPath("/card"),
        ]);

    private static readonly QueryPolicyPaths s_paths = new(Policy);

    [Theory]
    [InlineData("SELECT * FROM c WHERE c.ssn > @ssn", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c.age >= 18", "/age")]
    [InlineData("SELECT * FROM c WHERE c.age BETWEEN 1 AND 5", "/age")]
    [InlineData("SELECT * FROM c ORDER BY c.ssn", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c.id = @id ORDER BY c.age DESC", "/age")]
    [InlineData("SELECT * FROM c WHERE STARTSWITH(c.ssn, @p)", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c.age + 1 = @p", "/age")]
    [InlineData("SELECT * FROM c WHERE @p = c.age + 1", "/age")]
    [InlineData("SELECT * FROM c WHERE c.notes = @notes", "/notes")]
    [InlineData("SELECT * FROM c WHERE c.notes IN (@a)", "/notes")]
    [InlineData("SELECT VALUE root FROM root WHERE (root[\"notes\"] = \"x\")", "/notes")]
    [InlineData("SELECT * FROM c WHERE c.ssn = LOWER(@p)", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c.ssn = @p + 'x'", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c.ssn = c.other", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c.ssn IN (@a, LOWER(@b))", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c.ssn = @p ?? @q", "/ssn")]
    [InlineData("SELECT * FROM c WHERE @q ?? c.ssn = @p", "/ssn")]
    [InlineData("SELECT * FROM c WHERE NOT c.ssn = @p", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c.ssn = @p = true", "/ssn")]
    [InlineData("SELECT VALUE MAX(c.card) FROM c", "/card")]
    [InlineData("SELECT VALUE MIN(c.ssn) FROM c", "/ssn")]
    [InlineData("SELECT c.ssn, COUNT(1) FROM c GROUP BY c.ssn", "/ssn")]
    [InlineData("SELECT DISTINCT VALUE c.card FROM c", "/card")]
    [InlineData("SELECT DISTINCT c.id, c.notes, c._ei FROM c", "/notes")]
    [InlineData("SELECT DISTINCT c.ssn, c._ei FROM c", "/ssn")]
    [InlineData("SELECT DISTINCT c.id, c.ssn FROM c", "/ssn")]
    [InlineData("SELECT VALUE c.ssn FROM c", "/ssn")]
    [InlineData("SELECT VALUE c.card FROM c", "/card")]
    [InlineData("SELECT c.ssn AS s, c._ei FROM c", "/ssn")]
    [InlineData("SELECT c.SSN, c._ei FROM c", "/ssn")]
    [InlineData("SELECT c.ssn, c._ei AS e FROM c", "/ssn")]
    [InlineData("SELECT VALUE {\"s\": c.ssn, \"_ei\": c._ei} FROM c", "/ssn")]
    [InlineData("SELECT VALUE [c.ssn, c._ei] FROM c", "/ssn")]
    [InlineData("SELECT * FROM c.ssn s", "/ssn")]
    [InlineData("SELECT * FROM c JOIN t IN c.tags", "/ssn")]
    [InlineData("SELECT c FROM c", "/ssn")]
    [InlineData("SELECT DISTINCT VALUE c.ssn FROM c", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c.SSN > 1", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c[\"Ssn\"] > 1", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c[\"\\u0073sn\"] > 1", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c['CARD'] = @p", "/card")]
    [InlineData("SELECT c.id FROM c JOIN (SELECT VALUE c.card) s WHERE s = @p", "/card")]
    [InlineData("SELECT * FROM c.card s WHERE s = @p", "/card")]
    [InlineData("SELECT * FROM c.ssn s WHERE s > @p", "/ssn")]
    [InlineData("SELECT * FROM root r WHERE r.notes = 'x'", "/notes")]
    [InlineData("SELECT * FROM c WHERE c.card.number = 1", "/card")]
    [InlineData("SELECT c.card.number FROM c", "/card")]
    [InlineData("SELECT c.id FROM c JOIN x IN c.card", "/card")]
    [InlineData("SELECT * FROM c WHERE c[@p] = 1", "/ssn")]
    [InlineData("SELECT * FROM c WHERE CONTAINS(ToString(c), '078')", "/ssn")]
    [InlineData("SELECT * FROM c ORDER BY c", "/ssn")]
    [InlineData("SELECT * FROM (SELECT * FROM c) d WHERE d.ssn = @p", "/ssn")]
    [InlineData("SELECT * FROM c WHERE ssn = @p", "/ssn")]
    [InlineData("SELECT * FROM c WHERE (SELECT VALUE c.ssn) = @p", "/ssn")]
    [InlineData("SELECT * FROM c WHERE ARRAY_CONTAINS(ARRAY(SELECT VALUE c.ssn), @p)", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c.ssn LIKE '078%'", "/ssn")]
    [InlineData("SELECT * FROM c WHERE (c.ssn ?? 'x') = @p", "/ssn")]
    [InlineData("SELECT * FROM c WHERE IS_STRING(c.ssn)", "/ssn")]
    [InlineData("SELECT * FROM c WHERE udf.f(c.ssn)", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c.ssn = 1 -- comment", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c.a = 1 /* c.SSN */", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c[\"\\u0063ard\"] = 1 --", "/card")]
    [InlineData("SELECT * FROM c WHERE c.ssn = 12345678901234567890123 ORDER BY", "/ssn")]
    public void Analyze_OtherUseOfPolicyPath_IsRefusedNamingThePath(string query, string path)
    {
        var exception = Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze(query, s_paths));

        Assert.Contains($"'{path}'", exception.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("SELECT * FROM c WHERE c.notes = @n", "randomized")]
    [InlineData("SELECT * FROM c WHERE c.age > 1", "deterministically")]
    [InlineData("SELECT * FROM c ORDER BY c.ssn", "ORDER BY")]
    [InlineData("SELECT c.ssn, COUNT(1) FROM c GROUP BY c.ssn", "GROUP BY")]
    [InlineData("SELECT * FROM c WHERE c.a = 1 -- c.ssn", "cannot parse")]
    public void Analyze_Refusal_SaysWhy(string query, string reason)
    {
        var exception = Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze(query, s_paths));

        Assert.Contains(reason, exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Analyze_RefusalMessages_NeverHoldTheOperands()
    {
        var exception = Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze("SELECT * FROM c WHERE c.ssn > '078-05-1120'", s_paths));

        Assert.DoesNotContain("078", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Check_OnlyWhenThePolicyEncryptsWrites()
    {
        const string query = "SELECT * FROM c WHERE c.notes = 'x'";

        Assert.Throws<NotSupportedException>(() => new QueryGuard(Policy).Check(query));
        new QueryGuard(null).Check(query);
        new QueryGuard(new ContainerEncryptionPolicy("dek", ["/notes"]) { PlaintextPolicy = PlaintextPolicy.WritePlaintextReadBoth }).Check(query);
        new QueryGuard(Policy).Check((string?)null);
    }

    [Fact]
    public void Rewrite_ComparisonsGetFreshParameters_PlaintextOperandsAreNotSent()
    {
        QueryDefinition definition = new QueryDefinition("SELECT * FROM c WHERE c.ssn = @ssn AND c.id = @id AND c.age IN (30, @a, null)")
            .WithParameter("@ssn", "078-05-1120")
            .WithParameter("@id", "1")
            .WithParameter("@a", 40);

        QueryDefinition sent = Rewrite(definition, keys: 1);

        Assert.Equal("SELECT * FROM c WHERE (c.ssn = @__enc0) AND c.id = @id AND (c.age IN (@__enc1, @__enc2, null))", sent.QueryText);
        Assert.Equal(["@id", "@__enc0", "@__enc1", "@__enc2"], sent.GetQueryParameters().Select(p => p.Name));
        Assert.DoesNotContain(sent.GetQueryParameters(), p => p.Value is "078-05-1120" or 40);
    }

    [Fact]
    public void Rewrite_DuringRotation_ComparesWithEveryKeyOnEitherSide()
    {
        Assert.Equal(
            "SELECT * FROM c WHERE (c.ssn = @__enc0 OR c.ssn = @__enc1) AND c.id = @id",
            Rewrite(new QueryDefinition("SELECT * FROM c WHERE c.ssn = @ssn AND c.id = @id").WithParameter("@ssn", "x").WithParameter("@id", "1"), keys: 2).QueryText);
        Assert.Equal(
            "SELECT * FROM c WHERE (c.ssn != @__enc0 AND c.ssn != @__enc1)",
            Rewrite(new QueryDefinition("SELECT * FROM c WHERE @ssn != c.ssn").WithParameter("@ssn", "x"), keys: 2).QueryText);
        Assert.Equal(
            "SELECT * FROM c WHERE NOT(c.ssn IN (@__enc0, @__enc1, @__enc2, @__enc3))",
            Rewrite(new QueryDefinition("SELECT * FROM c WHERE NOT(c.ssn IN (@a, 'b'))").WithParameter("@a", "x"), keys: 2).QueryText);
    }

    [Fact]
    public void Rewrite_GeneratedNamesAvoidTheQuerysOwn()
    {
        QueryDefinition sent = Rewrite(new QueryDefinition("SELECT * FROM c WHERE c.ssn = @__enc0").WithParameter("@__enc0", "x"), keys: 1);

        Assert.Equal("SELECT * FROM c WHERE (c.ssn = @__enc1)", sent.QueryText);
    }

    private static QueryDefinition Rewrite(QueryDefinition definition, int keys)
    {
        IReadOnlyList<EncryptedComparison> comparisons = QueryGuard.Analyze(definition.QueryText, s_paths);
        return QueryRewriter.Rewrite(definition, comparisons, (_, operand) => [.. Enumerable.Range(0, keys).Select(k => $"cipher{k}")]);
    }
}
