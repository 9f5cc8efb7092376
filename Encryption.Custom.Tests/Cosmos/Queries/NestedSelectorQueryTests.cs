using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Cosmos.Queries;

namespace Encryption.Custom.Tests.Cosmos.Queries;

/// <summary>
/// Until queries on nested values are classified, the guard treats the top-level value a nested selector starts at
/// as encrypted: a query reaching into it (<c>c.address.city</c>, a JOIN over <c>c.cards</c>) is refused before it is
/// sent, naming the selector; only the uses the guard proves harmless (IS_DEFINED, the whole document) pass.
/// </summary>
public sealed class NestedSelectorQueryTests
{
    private static readonly QueryPolicyPaths s_paths = new(new ContainerEncryptionPolicy(
        "dek",
        [
            new EncryptionPolicyIncludedPath("/address/city") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/cards/[]/number"),
            new EncryptionPolicyIncludedPath("/ssn"),
        ]));

    [Theory]
    [InlineData("SELECT * FROM c WHERE c.address.city = 'Paris'", "/address/city")]
    [InlineData("SELECT * FROM c WHERE c.address.city = @city", "/address/city")]
    [InlineData("SELECT * FROM c WHERE c[\"address\"][\"city\"] = @city", "/address/city")]
    [InlineData("SELECT * FROM c WHERE c.ADDRESS.city = @city", "/address/city")]
    [InlineData("SELECT * FROM c WHERE c.address = @address", "/address/city")]
    [InlineData("SELECT * FROM c ORDER BY c.address.city", "/address/city")]
    [InlineData("SELECT VALUE c.address.city FROM c", "/address/city")]
    [InlineData("SELECT VALUE c.address FROM c", "/address/city")]
    [InlineData("SELECT * FROM c JOIN t IN c.cards WHERE t.number = @n", "/cards/[]/number")]
    [InlineData("SELECT * FROM c WHERE ARRAY_CONTAINS(c.cards, {\"number\": @n}, true)", "/cards/[]/number")]
    [InlineData("SELECT * FROM c WHERE c.cards[0].number = @n", "/cards/[]/number")]
    [InlineData("SELECT * FROM c WHERE STARTSWITH(c.address.city, 'P')", "/address/city")]
    public void QueryReachingIntoANestedSelector_IsRefusedBeforeSending(string query, string selector)
    {
        var exception = Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze(query, s_paths));

        Assert.Contains($"'{selector}'", exception.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("SELECT * FROM c")]
    [InlineData("SELECT VALUE c FROM c")]
    [InlineData("SELECT * FROM c WHERE IS_DEFINED(c.address)")]
    [InlineData("SELECT * FROM c WHERE c.name = 'x' AND c.addressLine = 'y'")]
    public void HarmlessQuery_Passes(string query)
    {
        _ = QueryGuard.Analyze(query, s_paths);
    }
}
