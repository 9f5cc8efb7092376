using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Policy;

/// <summary>
/// Queries over a policy with nested selectors through a real CosmosClient against the bundled endpoint (docs/queries.md
/// "Nested selectors"): projections of values that hold cells come back in plaintext (the container adds the
/// envelope the query does not select, and its decryption removes it), equality on a deterministic
/// nested leaf (and on a card number inside an array, through EXISTS or JOIN) finds the document, a bound policy's
/// deterministic leaf is found the same way, and the shapes the container could not decrypt or evaluate are refused
/// before anything is sent.
/// </summary>
public sealed class NestedSelectorQueryTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public static TheoryData<JsonProcessor> Processors => [JsonProcessor.Stream, JsonProcessor.Newtonsoft];

    private static ContainerEncryptionPolicy NestedPolicy(bool bind = false) => new(
        EncryptionFixture.Dek1,
        [
            new EncryptionPolicyIncludedPath("/ssn"),
            new EncryptionPolicyIncludedPath("/address/city") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/address/zip"),
            new EncryptionPolicyIncludedPath("/cards/[]/number") { EncryptionType = PathEncryptionType.Deterministic },
        ])
    { Bind = bind };

    private static JObject Customer(string id, string city, string card) => JObject.Parse($$"""
        {"id":"{{id}}","pk":"p1","name":"Ada-{{id}}","ssn":"SECRET-ssn-{{id}}",
         "address":{"street":"1 Main St","city":"{{city}}","zip":"SECRET-zip-{{id}}"},
         "cards":[{"number":"{{card}}","expiry":"12/30"},{"expiry":"02/32"}]}
        """);

    private async Task<(Container Raw, Container Container)> SeedAsync(JsonProcessor processor, bool bind = false)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(
            options: new EncryptionContainerOptions { JsonProcessor = processor, Policy = NestedPolicy(bind) },
            cancellationToken: Ct);
        await container.CreateItemAsync(Customer("c1", "SECRET-Paris", "SECRET-4111"), new PartitionKey("p1"), cancellationToken: Ct);
        await container.CreateItemAsync(Customer("c2", "SECRET-Lyon", "SECRET-5500"), new PartitionKey("p1"), cancellationToken: Ct);
        return (raw, container);
    }

    private static async Task<List<JObject>> RowsAsync(Container container, QueryDefinition query)
    {
        var rows = new List<JObject>();
        using FeedIterator<JObject> iterator = container.GetItemQueryIterator<JObject>(query);
        while (iterator.HasMoreResults)
        {
            rows.AddRange(await iterator.ReadNextAsync(Ct));
        }

        return rows;
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task ProjectionsOfNestedValues_WithTheEnvelope_ComeBackInPlaintext(JsonProcessor processor)
    {
        (_, Container container) = await SeedAsync(processor);

        foreach (string text in new[]
        {
            "SELECT * FROM c",
            "SELECT VALUE c FROM c",
            "SELECT c.id, c.address, c.cards, c._ei, c._ex FROM c",
            "SELECT c.id, c.address, c.cards FROM c", // the container adds c._ei and c._ex, and its decryption removes them
            "SELECT c.id, c.address, c._ei, c.cards FROM c",
            "SELECT VALUE {\"id\": c.id, \"address\": c.address, \"cards\": c.cards, \"_ei\": c._ei, \"_ex\": c._ex} FROM c",
        })
        {
            List<JObject> rows = await RowsAsync(container, new QueryDefinition(text));

            Assert.Equal(2, rows.Count);
            JObject c1 = rows.Single(r => (string?)r["id"] == "c1");
            Assert.Equal("SECRET-Paris", (string?)c1["address"]!["city"]);
            Assert.Equal("SECRET-zip-c1", (string?)c1["address"]!["zip"]);
            Assert.Equal("1 Main St", (string?)c1["address"]!["street"]);
            Assert.Equal("SECRET-4111", (string?)c1["cards"]![0]!["number"]);
            Assert.Equal("12/30", (string?)c1["cards"]![0]!["expiry"]);
            Assert.Null(c1["_ei"]);
            Assert.Null(c1["_ex"]);
            Assert.Equal(text.StartsWith("SELECT c.", StringComparison.Ordinal) ? 3 : c1.Count, c1.Count);
        }
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task EqualityOnDeterministicNestedLeaves_FindsTheDocument(JsonProcessor processor)
    {
        (Container raw, Container container) = await SeedAsync(processor);

        foreach (QueryDefinition query in new[]
        {
            new QueryDefinition("SELECT * FROM c WHERE c.address.city = @city").WithParameter("@city", "SECRET-Paris"),
            new QueryDefinition("SELECT * FROM c WHERE c.address.city IN ('SECRET-Paris', 'SECRET-Nice')"),
            new QueryDefinition("SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.cards WHERE t.number = @card)").WithParameter("@card", "SECRET-4111"),
            new QueryDefinition("SELECT VALUE c FROM c JOIN t IN c.cards WHERE t.number = @card").WithParameter("@card", "SECRET-4111"),
            await new QueryDefinition("SELECT * FROM c WHERE c.address.city = @city").AddParameterAsync("@city", "SECRET-Paris", "/address/city", container, Ct),
        })
        {
            JObject found = Assert.Single(await RowsAsync(container, query));
            Assert.Equal("c1", (string?)found["id"]);
            Assert.Equal("SECRET-Paris", (string?)found["address"]!["city"]);
        }

        JObject other = Assert.Single(await RowsAsync(container, new QueryDefinition("SELECT * FROM c WHERE c.address.city != @city").WithParameter("@city", "SECRET-Paris")));
        Assert.Equal("c2", (string?)other["id"]);

        // The plain SDK with the plaintext finds nothing: the service only holds ciphertext there.
        Assert.Empty(await RowsAsync(raw, new QueryDefinition("SELECT * FROM c WHERE c.address.city = 'SECRET-Paris'")));
    }

    [Fact]
    public async Task BoundPolicy_DeterministicNestedLeafStaysUnbound_EqualityFindsTheDocument_ProjectionNeedsTheIdAndPartitionKey()
    {
        (_, Container container) = await SeedAsync(JsonProcessor.Stream, bind: true);

        JObject found = Assert.Single(await RowsAsync(container, new QueryDefinition("SELECT * FROM c WHERE c.address.city = @city").WithParameter("@city", "SECRET-Lyon")));
        Assert.Equal("c2", (string?)found["id"]);
        Assert.Equal("SECRET-zip-c2", (string?)found["address"]!["zip"]);

        List<JObject> rows = await RowsAsync(container, new QueryDefinition("SELECT c.id, c.pk, c.address, c._ei, c._ex FROM c WHERE c.address.city = @city").WithParameter("@city", "SECRET-Lyon"));
        Assert.Equal("SECRET-zip-c2", (string?)Assert.Single(rows)["address"]!["zip"]);

        NotSupportedException bound = Assert.Throws<NotSupportedException>(() => container.GetItemQueryIterator<JObject>(new QueryDefinition("SELECT * FROM c WHERE c.address.zip = @zip").WithParameter("@zip", "SECRET-zip-c2")));
        Assert.Contains("'/address/zip'", bound.Message, StringComparison.Ordinal);
        NotSupportedException withoutId = Assert.Throws<NotSupportedException>(() => container.GetItemQueryIterator<JObject>("SELECT c.address, c._ei, c._ex FROM c"));
        Assert.Contains("c.id and the partition key", withoutId.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("SELECT c.address.city FROM c", "'/address/city'")]
    [InlineData("SELECT VALUE c.address FROM c", "'/address/city'")]
    [InlineData("SELECT c.address AS a, c._ei, c._ex FROM c", "'/address/city'")]
    [InlineData("SELECT * FROM c WHERE ARRAY_CONTAINS(c.cards, {\"number\": 'SECRET-4111'}, true)", "'/cards/[]/number'")]
    [InlineData("SELECT * FROM c WHERE c.address.zip = 'SECRET-zip-c1'", "'/address/zip'")]
    [InlineData("SELECT * FROM c ORDER BY c.address.city", "'/address/city'")]
    public async Task UnsupportedShapes_AreRefusedBeforeSending(string text, string named)
    {
        (_, Container container) = await SeedAsync(JsonProcessor.Stream);

        NotSupportedException refused = Assert.Throws<NotSupportedException>(() => container.GetItemQueryIterator<JObject>(text));

        Assert.Contains(named, refused.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("SECRET", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task PlaintextPropertiesBesideSelectedValues_AreQueriedAsUsual()
    {
        (_, Container container) = await SeedAsync(JsonProcessor.Stream);

        List<JObject> rows = await RowsAsync(container, new QueryDefinition("SELECT c.id, c.address.street, c.cards[0].expiry FROM c WHERE c.address.street = '1 Main St' AND c.name = 'Ada-c2'"));

        JObject row = Assert.Single(rows);
        Assert.Equal("""{"id":"c2","street":"1 Main St","expiry":"12/30"}""", row.ToString(Formatting.None));
    }
}
