using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Cosmos.Queries;

namespace Encryption.Custom.Tests.Cosmos.Queries;

/// <summary>The one query check: what is allowed on deterministic paths, what is refused on any encrypted path, and the rotation rewrite.</summary>
public sealed class QueryGuardTests
{
    private static readonly ContainerEncryptionPolicy s_policy = new(
        "dek",
        [
            new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/age") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/notes"),
        ]);

    [Theory]
    [InlineData("SELECT * FROM c WHERE c.ssn = @ssn")]
    [InlineData("SELECT * FROM c WHERE c.ssn=@ssn AND c.age != @age")]
    [InlineData("SELECT * FROM c WHERE c.ssn <> @ssn")]
    [InlineData("SELECT * FROM c WHERE @ssn = c.ssn")]
    [InlineData("SELECT * FROM c WHERE c.ssn IN (@a, @b)")]
    [InlineData("SELECT * FROM c WHERE c.ssn NOT IN (@a, @b)")]
    [InlineData("SELECT VALUE root FROM root WHERE (root[\"ssn\"] = \"AgE=\")")]
    [InlineData("SELECT VALUE root FROM root WHERE root[\"ssn\"] IN (\"AgE=\", \"AgF=\")")]
    [InlineData("SELECT c.notes, c.ssn FROM c WHERE c.id = @id ORDER BY c.id")]
    public void Check_EqualityOnDeterministicPath_IsAllowed(string query)
    {
        Assert.Null(QueryGuard.Scan(query, s_policy, null));
    }

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
    [InlineData("SELECT VALUE root FROM root WHERE (root[\"notes\"] = \"x\")", "/notes")]
    public void Check_OtherUseOfEncryptedPath_IsRefusedNamingThePath(string query, string path)
    {
        var exception = Assert.Throws<NotSupportedException>(() => QueryGuard.Scan(query, s_policy, null));

        Assert.Contains($"'{path}'", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Check_RandomizedPath_SaysRandomized()
    {
        var exception = Assert.Throws<NotSupportedException>(() => QueryGuard.Scan("SELECT * FROM c WHERE c.notes = @n", s_policy, null));

        Assert.Contains("randomized", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Check_DuringRotation_RewritesEqualityAndListEntriesToEveryKey()
    {
        var expansions = new EncryptedQueryParameters
        {
            ["@ssn"] = ["@ssn", "@ssn__k1"],
            ["@a"] = ["@a", "@a__k1"],
        };

        Assert.Equal("SELECT * FROM c WHERE c.ssn IN (@ssn, @ssn__k1) AND c.id = @id", QueryGuard.Scan("SELECT * FROM c WHERE c.ssn = @ssn AND c.id = @id", s_policy, expansions));
        Assert.Equal("SELECT * FROM c WHERE c.ssn NOT IN (@ssn, @ssn__k1)", QueryGuard.Scan("SELECT * FROM c WHERE c.ssn != @ssn", s_policy, expansions));
        Assert.Equal("SELECT * FROM c WHERE c.ssn IN (@a, @a__k1, @b)", QueryGuard.Scan("SELECT * FROM c WHERE c.ssn IN (@a, @b)", s_policy, expansions));
        Assert.Throws<NotSupportedException>(() => QueryGuard.Scan("SELECT * FROM c WHERE @ssn = c.ssn", s_policy, expansions));
    }
}
