using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Cosmos.Queries;
using Encryption.Custom.Cosmos.Queries.Tokens;
using Encryption.Custom.Cosmos.Serialization;
using Encryption.Custom.Tests.TestSupport;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.Queries;

/// <summary>
/// What a range or prefix query sends (docs/queries.md "Range and prefix queries"): token matches instead of the
/// conditions, under every accepted key, and never the plaintext bounds; conditions that cannot be served are left to
/// the guard, which refuses them.
/// </summary>
public sealed class TokenQueryRewriterTests : IDisposable
{
    private readonly DataEncryptionKey _key1 = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly DataEncryptionKey _key2 = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
    private readonly TestEncryptor _encryptor = new();

    public TokenQueryRewriterTests() => _encryptor.Add("dek1", _key1).Add("dek2", _key2);

    public void Dispose()
    {
        _key1.Dispose();
        _key2.Dispose();
    }

    private QueryGuard Guard(params string[] accepted) => new(
        new ContainerEncryptionPolicy("dek1",
        [
            new EncryptionPolicyIncludedPath("/age") { Queries = new IntegerRangeQueryOptions(0, 150) { Sparsity = 1 } },
            new EncryptionPolicyIncludedPath("/name") { Queries = new PrefixQueryOptions { MinLength = 2, MaxLength = 4 } },
            new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic },
        ])
        { AcceptedDataEncryptionKeyIds = accepted },
        _encryptor,
        new NewtonsoftItemSerializer(null));

    [Fact]
    public void RangeAndPrefix_AreSentAsTokenMatches_WithoutThePlaintextBounds()
    {
        QueryDefinition sent = Guard().Check(
            new QueryDefinition("SELECT * FROM c WHERE c.age >= @low AND c.age < @high AND STARTSWITH(c.name, @p) AND c.ssn = @ssn")
                .WithParameter("@low", 64).WithParameter("@high", 128).WithParameter("@p", "Adelheid").WithParameter("@ssn", "078-05-1120"),
            out TokenRecheck? recheck);

        Assert.NotNull(recheck);
        Assert.Equal(3, recheck.Predicates.Count);
        Assert.Equal(2, sent.QueryText.Split("EXISTS(SELECT VALUE __qt FROM __qt IN c[\"_q\"][\"/age\"] WHERE __qt IN (@__qt").Length - 1);
        Assert.Contains("EXISTS(SELECT VALUE __qt FROM __qt IN c[\"_q\"][\"/name\"] WHERE __qt IN (@__qt", sent.QueryText, StringComparison.Ordinal);
        Assert.Contains("(c.ssn = @__enc0)", sent.QueryText, StringComparison.Ordinal); // equality on a deterministic path still works beside them
        Assert.DoesNotContain("c.age", sent.QueryText, StringComparison.Ordinal);
        IReadOnlyList<(string Name, object Value)> parameters = [.. sent.GetQueryParameters()];
        Assert.DoesNotContain(parameters, p => p.Name is "@low" or "@high" or "@p" or "@ssn");
        Assert.DoesNotContain(parameters, p => p.Value is string text && (text.Contains("Adel", StringComparison.Ordinal) || text == "078-05-1120"));
        Assert.All(parameters.Where(p => p.Name.StartsWith("@__qt", StringComparison.Ordinal)), p => Assert.Equal(16, ((string)p.Value).Length));
    }

    [Fact]
    public void DuringARotation_EveryTokenIsSentUnderEveryAcceptedKey()
    {
        QueryDefinition one = Guard().Check(new QueryDefinition("SELECT * FROM c WHERE c.age BETWEEN 3 AND 17"), out _);
        QueryDefinition two = Guard("dek2").Check(new QueryDefinition("SELECT * FROM c WHERE c.age BETWEEN 3 AND 17"), out _);

        string[] first = [.. one.GetQueryParameters().Select(p => (string)p.Value)];
        string[] both = [.. two.GetQueryParameters().Select(p => (string)p.Value)];
        Assert.Equal(2 * first.Length, both.Length);
        Assert.Equal(first, both.Take(first.Length));
        Assert.Empty(first.Intersect(both.Skip(first.Length)));
    }

    [Theory]
    [InlineData("SELECT * FROM c WHERE c.age > 150")]
    [InlineData("SELECT * FROM c WHERE c.age < 0")]
    [InlineData("SELECT * FROM c WHERE c.age BETWEEN 9 AND 3")]
    public void ARangeNoValueCanSatisfy_IsSentAsFalse(string query) =>
        Assert.Equal("SELECT * FROM c WHERE (false)", Guard().Check(new QueryDefinition(query), out _).QueryText);

    [Theory]
    [InlineData("SELECT * FROM c WHERE c.age > 3 OR c.x = 1", "'/age'")]
    [InlineData("SELECT c.id FROM c WHERE c.age > 3", "projection")]
    [InlineData("SELECT TOP 1 * FROM c WHERE c.age > 3", "TOP")]
    [InlineData("SELECT * FROM c WHERE STARTSWITH(c.name, 'A')", "shorter")]
    [InlineData("SELECT * FROM c WHERE STARTSWITH(c.name, 'Ab', true)", "IgnoreCase")]
    [InlineData("SELECT * FROM c WHERE c.age > @missing", "parameter or a literal")]
    [InlineData("SELECT * FROM c WHERE c.age > '3'", "number")]
    public void ShapesThatCannotBeServed_AreRefusedNamingWhy(string query, string why)
    {
        NotSupportedException error = Assert.Throws<NotSupportedException>(() => Guard().Check(new QueryDefinition(query), out _));
        Assert.Contains(why, error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("SELECT c.id, c.name FROM c", "SELECT c._ei, c._ex, c._q, c.id, c.name FROM c")]
    [InlineData("SELECT c.id, c.name, c._ei, c._ex FROM c", "SELECT c._q, c.id, c.name, c._ei, c._ex FROM c")]
    public void AProjection_CarriesTheTokensWithTheEnvelope(string query, string sent) =>
        Assert.Equal(sent, Guard().Check(new QueryDefinition(query), out _).QueryText);

    [Theory]
    [InlineData("c.address.zip >= @low AND c.address.zip < @high")]
    [InlineData("c[\"address\"][\"zip\"] >= @low AND c.address[\"zip\"] < @high")]
    [InlineData("c.address.zip BETWEEN @low AND @high")]
    public void NestedSelectorRange_IsSentAsTokenMatches_AndRecheckedAtItsPath(string condition)
    {
        var guard = new QueryGuard(
            new ContainerEncryptionPolicy("dek1",
            [
                new EncryptionPolicyIncludedPath("/address/zip") { Queries = new IntegerRangeQueryOptions(0, 99999) },
                new EncryptionPolicyIncludedPath("/address/city"),
            ]),
            _encryptor,
            new NewtonsoftItemSerializer(null));
        QueryDefinition sent = guard.Check(
            new QueryDefinition($"SELECT * FROM c WHERE {condition}").WithParameter("@low", 10000).WithParameter("@high", 20000),
            out TokenRecheck? recheck);

        Assert.NotNull(recheck);
        Assert.All(recheck.Predicates, p => Assert.Equal("/address/zip", p.Rule.Path));
        Assert.Contains("c[\"_q\"][\"/address/zip\"]", sent.QueryText, StringComparison.Ordinal);
        Assert.DoesNotContain("zip\"] >", sent.QueryText, StringComparison.Ordinal);
        Assert.DoesNotContain("zip >", sent.QueryText, StringComparison.Ordinal);
        Assert.DoesNotContain(sent.GetQueryParameters(), p => p.Name is "@low" or "@high");

        // The re-check reads the nested value of each decrypted row.
        Assert.True(recheck.Predicates.All(p => p.Matches(Newtonsoft.Json.Linq.JObject.Parse("""{"address":{"zip":15000}}"""))));
        Assert.False(recheck.Predicates.All(p => p.Matches(Newtonsoft.Json.Linq.JObject.Parse("""{"address":{"zip":25000}}"""))));
        Assert.False(recheck.Predicates.All(p => p.Matches(Newtonsoft.Json.Linq.JObject.Parse("""{"address":"15000"}"""))));
        Assert.False(recheck.Predicates.All(p => p.Matches(Newtonsoft.Json.Linq.JObject.Parse("""{"zip":15000}"""))));

        // A range on the nested path without a declaration stays refused.
        Assert.Throws<NotSupportedException>(() => guard.Check(new QueryDefinition("SELECT * FROM c WHERE c.address.city >= 'B'"), out _));
    }
}
