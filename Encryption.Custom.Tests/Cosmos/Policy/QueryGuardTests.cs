using Encryption.Custom.Cosmos.Processing;

namespace Encryption.Custom.Tests.Cosmos.Policy;

/// <summary>The conservative text check of queries against randomized policy paths.</summary>
public sealed class QueryGuardTests
{
    private static readonly ContainerEncryptionPolicy s_policy = new("dek1", ["/ssn", "/salary"]);

    [Theory]
    [InlineData("SELECT * FROM c WHERE c.ssn = 'x'", "/ssn")]
    [InlineData("select * from c where c.name = 'a' and c.salary > 3", "/salary")]
    [InlineData("SELECT * FROM c ORDER BY c.salary DESC", "/salary")]
    [InlineData("SELECT VALUE root FROM root WHERE (root[\"ssn\"] = \"x\")", "/ssn")]
    [InlineData("SELECT VALUE root FROM root ORDER BY root['salary'] ASC", "/salary")]
    [InlineData("SELECT * FROM c WHERE c . ssn = @v", "/ssn")]
    public void FilterOrOrderOnPolicyPath_IsFound(string query, string path)
    {
        NotSupportedException error = Assert.Throws<NotSupportedException>(() => QueryGuard.Scan(query, s_policy, null));
        Assert.Contains($"'{path}'", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("SELECT * FROM c")]
    [InlineData("SELECT c.ssn, c._ei FROM c")]
    [InlineData("SELECT c.ssn FROM c WHERE c.name = 'c.ssn'")]
    [InlineData("SELECT * FROM c WHERE c.name = \"where c.ssn\"")]
    [InlineData("SELECT * FROM c WHERE c.Ssn = 1")]
    [InlineData("SELECT * FROM c WHERE c.ssnx = 1 ORDER BY c.name")]
    [InlineData("SELECT * FROM c WHERE @ssn = c.name")]
    public void OtherQueries_AreAllowed(string query)
    {
        Assert.Null(QueryGuard.Scan(query, s_policy, null));
    }

    [Fact]
    public void Check_ThrowsNotSupported_OnlyWhenThePolicyEncryptsWrites()
    {
        const string query = "SELECT * FROM c WHERE c.ssn = 'x'";
        NotSupportedException error = Assert.Throws<NotSupportedException>(() => new QueryGuard(s_policy).Check(query));
        Assert.Contains("'/ssn'", error.Message, StringComparison.Ordinal);
        Assert.Contains("randomized", error.Message, StringComparison.Ordinal);

        new QueryGuard(null).Check(query);
        new QueryGuard(new ContainerEncryptionPolicy("dek1", ["/ssn"]) { PlaintextPolicy = PlaintextPolicy.WritePlaintextReadBoth }).Check(query);
        new QueryGuard(s_policy).Check((string?)null);
    }
}
