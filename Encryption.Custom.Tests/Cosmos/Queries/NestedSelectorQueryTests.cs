using Encryption.Custom.Cosmos.Queries;
using Encryption.Custom.Cosmos.Queries.Analysis;

namespace Encryption.Custom.Tests.Cosmos.Queries;

/// <summary>
/// Queries over a policy with nested selectors: every reference is walked on the policy's selector tree, so a
/// plaintext property beside a selected value is free, a deterministic nested leaf (also one reached through an
/// array iteration) can be compared for equality, a value that holds cells can be tested for existence or returned
/// beside the document's envelope, and everything else is refused before sending, naming the selector.
/// </summary>
public sealed class NestedSelectorQueryTests
{
    private static readonly QueryPolicyPaths s_paths = new(new ContainerEncryptionPolicy(
        "dek",
        [
            new EncryptionPolicyIncludedPath("/address/city") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/cards/[]/number"),
            new EncryptionPolicyIncludedPath("/ssn"),
        ])
    { Bind = false });

    private static readonly QueryPolicyPaths s_deterministicCards = new(new ContainerEncryptionPolicy(
        "dek",
        [
            new EncryptionPolicyIncludedPath("/cards/[]/number") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/tags/[]") { EncryptionType = PathEncryptionType.Deterministic },
        ])
    { Bind = false });

    private static readonly QueryPolicyPaths s_bound = new(new ContainerEncryptionPolicy(
        "dek",
        [
            new EncryptionPolicyIncludedPath("/address/city") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/address/zip"),
        ])
    { Bind = true });

    [Theory]
    [InlineData("SELECT * FROM c WHERE c.address = @address", "/address/city", "holds")]
    [InlineData("SELECT * FROM c ORDER BY c.address.city", "/address/city", "deterministically")]
    [InlineData("SELECT * FROM c ORDER BY c.address", "/address/city", "holds")]
    [InlineData("SELECT VALUE c.address.city FROM c", "/address/city", "bare value")]
    [InlineData("SELECT VALUE c.address FROM c", "/address/city", "bare value")]
    [InlineData("SELECT c.address.city FROM c", "/address/city", "bare value")]
    [InlineData("SELECT c.address.city, c._ei, c._ex FROM c", "/address/city", "bare value")]
    [InlineData("SELECT c.address AS a, c._ei, c._ex FROM c", "/address/city", "bare value")]
    [InlineData("SELECT VALUE {\"address\": c.address, \"_ei\": c._ei} FROM c", "/address/city", "c._ei and c._ex")]
    [InlineData("SELECT c.address, c._ei AS e FROM c", "/address/city", "c._ei and c._ex")]
    [InlineData("SELECT c.address, c.id AS _ex FROM c", "/address/city", "c._ei and c._ex")]
    [InlineData("SELECT a FROM c.address a", "/address/city", "bare value")]
    [InlineData("SELECT DISTINCT c.address, c._ei, c._ex FROM c", "/address/city", "holds")]
    [InlineData("SELECT * FROM c JOIN t IN c.cards WHERE t.number = @n", "/cards/[]/number", "randomized")]
    [InlineData("SELECT * FROM c WHERE ARRAY_CONTAINS(c.cards, {\"number\": @n}, true)", "/cards/[]/number", "holds")]
    [InlineData("SELECT * FROM c WHERE c.cards[0].number = @n", "/cards/[]/number", "randomized")]
    [InlineData("SELECT * FROM c WHERE STARTSWITH(c.address.city, 'P')", "/address/city", "deterministically")]
    [InlineData("SELECT * FROM c WHERE c.address.city.x = 'P'", "/address/city", "reaches into")]
    [InlineData("SELECT * FROM c JOIN t IN c.address.city", "/address/city", "reaches into")]
    [InlineData("SELECT * FROM c WHERE c.address[@p] = 'P'", "/address/city", "computed")]
    [InlineData("SELECT * FROM c WHERE c.cards[@i].number = @n", "/cards/[]/number", "computed")]
    [InlineData("SELECT VALUE s.x FROM (SELECT c.cards[0] AS x FROM c) s", "/cards/[]/number", "holds")]
    [InlineData("SELECT * FROM c WHERE x.number = @n", "/cards/[]/number", "cannot trace")]
    [InlineData("SELECT * FROM c WHERE c.address.city = c.address.street", "/address/city", "expression the library cannot encrypt")]
    [InlineData("SELECT * FROM c WHERE LENGTH(c.address) = 2", "/address/city", "holds")]
    [InlineData("SELECT * FROM c WHERE c.address.city > 'P'", "/address/city", "deterministically")]
    [InlineData("SELECT * FROM c WHERE (SELECT VALUE a.city FROM c.address a) = @city", "/address/city", "subquery")]
    [InlineData("SELECT * FROM c.address a WHERE a.city = @city", "/address/city", "bare value")]
    public void UnsupportedShape_IsRefusedBeforeSending_NamingTheSelector(string query, string selector, string reason)
    {
        var exception = Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze(query, s_paths));

        Assert.Contains($"'{selector}'", exception.Message, StringComparison.Ordinal);
        Assert.Contains(reason, exception.Message, StringComparison.OrdinalIgnoreCase);
    }

    [Theory]
    [InlineData("SELECT * FROM c")]
    [InlineData("SELECT VALUE c FROM c")]
    [InlineData("SELECT * FROM c WHERE IS_DEFINED(c.address)")]
    [InlineData("SELECT * FROM c WHERE IS_DEFINED(c.address.city) AND NOT IS_NULL(c.cards[0].number)")]
    [InlineData("SELECT * FROM c WHERE c.name = 'x' AND c.addressLine = 'y'")]
    [InlineData("SELECT * FROM c WHERE c.address.street = 'x' ORDER BY c.address.zip")]
    [InlineData("SELECT c.address.street, c.cards[0].expiry FROM c")]
    [InlineData("SELECT c.id, c.address, c.cards, c._ei, c._ex FROM c")]
    [InlineData("SELECT c.address, c._ex, c._ei FROM c WHERE c.address.street = 'x'")]
    [InlineData("SELECT VALUE {\"address\": c.address, \"_ei\": c._ei, \"_ex\": c._ex} FROM c")]
    [InlineData("SELECT VALUE c FROM c JOIN t IN c.cards WHERE t.expiry = '12/30'")]
    [InlineData("SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.cards WHERE IS_DEFINED(t.number))")]
    [InlineData("SELECT COUNT(c.address) FROM c")]
    [InlineData("SELECT VALUE COUNT(1) FROM c WHERE c.address.city = @city")]
    public void SupportedShape_Passes(string query)
    {
        _ = QueryGuard.Analyze(query, s_paths);
    }

    [Theory]
    [InlineData("SELECT c.address FROM c", "SELECT c._ei, c._ex, c.address FROM c")]
    [InlineData("SELECT TOP 3 c.id, c.cards FROM c ORDER BY c.id", "SELECT TOP 3 c._ei, c._ex, c.id, c.cards FROM c ORDER BY c.id")]
    [InlineData("SELECT r.address, r._ei FROM root r WHERE r.name = 'x'", "SELECT r._ex, r.address, r._ei FROM root r WHERE r.name = 'x'")]
    [InlineData("SELECT c.address, c._ex, c._ei FROM c", "SELECT c.address, c._ex, c._ei FROM c")]
    [InlineData("SELECT c.address.street FROM c", "SELECT c.address.street FROM c")]
    public void ProjectionWithoutTheEnvelope_IsSentWithIt_TheContainersDecryptionRemovesItFromEachRow(string query, string sent)
    {
        var guard = new QueryGuard(new ContainerEncryptionPolicy(
            "dek",
            [
                new EncryptionPolicyIncludedPath("/address/city") { EncryptionType = PathEncryptionType.Deterministic },
                new EncryptionPolicyIncludedPath("/cards/[]/number"),
            ])
    { Bind = false });

        Assert.Equal(sent, guard.Check(new Microsoft.Azure.Cosmos.QueryDefinition(query)).QueryText);
    }

    [Theory]
    [InlineData("SELECT * FROM c WHERE c.address.city = @city")]
    [InlineData("SELECT * FROM c WHERE c.address.city = 'Paris'")]
    [InlineData("SELECT * FROM c WHERE c[\"address\"][\"city\"] = @city")]
    [InlineData("SELECT * FROM c WHERE c.ADDRESS.City = @city")]
    [InlineData("SELECT * FROM c WHERE @city = c.address.city")]
    [InlineData("SELECT * FROM c WHERE c.address.city != @city")]
    [InlineData("SELECT * FROM c WHERE c.address.city IN (@city, 'Lyon')")]
    [InlineData("SELECT VALUE a.street FROM c.address a WHERE a.city = @city")]
    [InlineData("SELECT VALUE c FROM c JOIN (SELECT VALUE c.address) a WHERE a.city = @city")]
    public void EqualityOnADeterministicNestedLeaf_IsEncryptedWithThatSelector(string query)
    {
        EncryptedComparison comparison = Assert.Single(QueryGuard.Analyze(query, s_paths));

        Assert.Equal("/address/city", s_paths.GetPath(comparison.PathIndex));
    }

    [Theory]
    [InlineData("SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.cards WHERE t.number = @n)", "/cards/[]/number")]
    [InlineData("SELECT VALUE c FROM c JOIN t IN c.cards WHERE t.number = @n", "/cards/[]/number")]
    [InlineData("SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = @tag)", "/tags/[]")]
    [InlineData("SELECT * FROM c WHERE c.cards[1].number = @n", "/cards/[]/number")]
    public void EqualityOnADeterministicArrayWildcardLeaf_ReachedThroughAnIteration_IsEncryptedWithTheWildcardSelector(string query, string selector)
    {
        EncryptedComparison comparison = Assert.Single(QueryGuard.Analyze(query, s_deterministicCards));

        Assert.Equal(selector, s_deterministicCards.GetPath(comparison.PathIndex));
    }

    [Theory]
    [InlineData("SELECT * FROM c WHERE ARRAY_CONTAINS(c.tags, @tag)", "/tags/[]")]
    [InlineData("SELECT * FROM c WHERE ARRAY_CONTAINS(c.cards, {\"number\": @n}, true)", "/cards/[]/number")]
    [InlineData("SELECT * FROM c WHERE @tag IN (c.tags[0], c.tags[1])", "/tags/[]")]
    public void ArrayContainsOnAWildcardSelector_IsRefused_PointingAtTheExistsForm(string query, string selector)
    {
        var exception = Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze(query, s_deterministicCards));

        Assert.Contains($"'{selector}'", exception.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("SELECT * FROM c WHERE c.address.zip = @zip", "/address/zip", "randomized")]
    [InlineData("SELECT c.address, c._ei, c._ex FROM c", "/address/city", "c._ei, c._ex, c.id and the partition key")]
    [InlineData("SELECT c.address FROM c", "/address/city", "c._ei, c._ex, c.id and the partition key")]
    public void BoundPolicy_RefusesEqualityOnABoundPath_AndProjectionsWithoutTheId(string query, string selector, string reason)
    {
        var exception = Assert.Throws<NotSupportedException>(() => QueryGuard.Analyze(query, s_bound));

        Assert.Contains($"'{selector}'", exception.Message, StringComparison.Ordinal);
        Assert.Contains(reason, exception.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("SELECT * FROM c WHERE c.address.city = @city")]
    [InlineData("SELECT c.id, c.pk, c.address, c._ei, c._ex FROM c")]
    public void BoundPolicy_AllowsEqualityOnADeterministicPath_ItsCellsAreNeverBound(string query)
    {
        _ = QueryGuard.Analyze(query, s_bound);
    }
}
