using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Policy;

/// <summary>
/// A policy with nested selectors against the bundled endpoint through a real CosmosClient: writes store format 101
/// with ciphertext at exactly the selected values, every point operation and a SELECT * query give the values back,
/// what is not classified yet (a query or patch reaching into a selector) is refused before it is sent, and a reader
/// that takes the document for format 3 fails loudly instead of returning ciphertext.
/// </summary>
public sealed class NestedSelectorPolicyTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private const string Anchor = "7AEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==";

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public static TheoryData<JsonProcessor> Processors => [JsonProcessor.Stream, JsonProcessor.Newtonsoft];

    private static EncryptionContainerOptions WithPolicy(JsonProcessor processor) => new()
    {
        JsonProcessor = processor,
        // Unbound format 101 (crit ["sel"]): a nested policy binds by default; bound ones are BoundPolicyTests'.
        Policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, ["/ssn", "/address/city", "/cards/[]/number"]) { Bind = false },
    };

    private static JObject Customer(string id, string city) => JObject.Parse($$"""
        {"id":"{{id}}","pk":"p1","name":"Ada","ssn":"SECRET-ssn-{{id}}",
         "address":{"street":"1 Main St","city":"{{city}}"},
         "cards":[{"number":"SECRET-4111-{{id}}","expiry":"12/30"},{"number":"SECRET-5500-{{id}}","expiry":"01/31"},{"expiry":"02/32"}]}
        """);

    private static async Task AssertStoredAsync(Container raw, JObject document)
    {
        JObject stored = await RawDocuments.ReadAsync(raw, (string)document["id"]!, new PartitionKey("p1"), Ct);
        Assert.DoesNotContain("SECRET", stored.ToString(Formatting.None), StringComparison.Ordinal);
        Assert.Equal(101, (int)stored["_ei"]!["_ef"]!);
        Assert.Equal(Anchor, (string?)stored["_ex"]);
        Assert.Equal(["/_ex", "/ssn", "/address/city", "/cards/[]/number"], stored["_ei"]!["_ep"]!.Select(p => (string)p!));
        Assert.Equal(JTokenType.String, stored["address"]!["city"]!.Type);
        Assert.NotEqual((string?)document["address"]!["city"], (string?)stored["address"]!["city"]);
        Assert.Equal("1 Main St", (string?)stored["address"]!["street"]);
        Assert.Equal("12/30", (string?)stored["cards"]![0]!["expiry"]);
        Assert.Equal(JTokenType.String, stored["cards"]![1]!["number"]!.Type);
        Assert.Equal("Ada", (string?)stored["name"]);
    }

    private static JObject WithoutSystemProperties(JObject document)
    {
        var copy = (JObject)document.DeepClone();
        foreach (string name in new[] { "_rid", "_self", "_etag", "_attachments", "_ts", "_lsn" })
        {
            copy.Remove(name);
        }

        return copy;
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task PointOperationsAndSelectStar_RoundTripNestedValues_StoredAsCipherTextAtTheSelectorsOnly(JsonProcessor processor)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: WithPolicy(processor), cancellationToken: Ct);
        JObject created = Customer("c1", "SECRET-Paris");
        JObject upserted = Customer("c2", "SECRET-Lyon");

        await container.CreateItemAsync(created, new PartitionKey("p1"), cancellationToken: Ct);
        await AssertStoredAsync(raw, created);
        JObject read = (await container.ReadItemAsync<JObject>("c1", new PartitionKey("p1"), cancellationToken: Ct)).Resource;
        Assert.True(JToken.DeepEquals(created, WithoutSystemProperties(read)), read.ToString());

        JObject replaced = Customer("c1", "SECRET-Nice");
        await container.ReplaceItemAsync(replaced, "c1", new PartitionKey("p1"), cancellationToken: Ct);
        await AssertStoredAsync(raw, replaced);
        await container.UpsertItemAsync(upserted, new PartitionKey("p1"), cancellationToken: Ct);
        await AssertStoredAsync(raw, upserted);

        var all = new List<JObject>();
        using FeedIterator<JObject> query = container.GetItemQueryIterator<JObject>("SELECT * FROM c");
        while (query.HasMoreResults)
        {
            all.AddRange(await query.ReadNextAsync(Ct));
        }

        Assert.Equal(2, all.Count);
        Assert.True(JToken.DeepEquals(replaced, WithoutSystemProperties(all.Single(d => (string?)d["id"] == "c1"))));
        Assert.True(JToken.DeepEquals(upserted, WithoutSystemProperties(all.Single(d => (string?)d["id"] == "c2"))));
    }

    [Fact]
    public async Task QueryOrPatchReachingIntoASelector_IsRefusedBeforeSending()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: WithPolicy(JsonProcessor.Stream), cancellationToken: Ct);
        JObject document = Customer("c1", "SECRET-Paris");
        await container.CreateItemAsync(document, new PartitionKey("p1"), cancellationToken: Ct);

        NotSupportedException refused = Assert.Throws<NotSupportedException>(() => container.GetItemQueryIterator<JObject>("SELECT * FROM c WHERE c.address.city = 'SECRET-Paris'"));
        Assert.Contains("'/address/city'", refused.Message, StringComparison.Ordinal);

        EncryptionException patch = await Assert.ThrowsAsync<EncryptionException>(() => container.PatchItemAsync<JObject>("c1", new PartitionKey("p1"), [PatchOperation.Set("/cards/0/number/first", "SECRET-plain")], cancellationToken: Ct));
        Assert.Equal(EncryptionErrorKind.InvalidOptions, patch.Kind);
        await AssertStoredAsync(raw, document);

        // A patch elsewhere passes.
        await container.PatchItemAsync<JObject>("c1", new PartitionKey("p1"), [PatchOperation.Set("/address/street", "2 Side St")], cancellationToken: Ct);
        JObject read = (await container.ReadItemAsync<JObject>("c1", new PartitionKey("p1"), cancellationToken: Ct)).Resource;
        Assert.Equal("2 Side St", (string?)read["address"]!["street"]);
        Assert.Equal("SECRET-Paris", (string?)read["address"]!["city"]);
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task Format101Document_TakenForFormat3ByAReaderWithoutThePolicy_FailsLoudly(JsonProcessor processor)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: WithPolicy(JsonProcessor.Stream), cancellationToken: Ct);
        await container.CreateItemAsync(Customer("c1", "SECRET-Paris"), new PartitionKey("p1"), cancellationToken: Ct);

        // What a reader that checks the format lazily sees: the same document under _ef 3.
        JObject stored = await RawDocuments.ReadAsync(raw, "c1", new PartitionKey("p1"), Ct);
        stored["id"] = "c1-as-3";
        stored["_ei"]!["_ef"] = 3;
        using (MemoryStream body = new(System.Text.Encoding.UTF8.GetBytes(WithoutSystemProperties(stored).ToString(Formatting.None))))
        using (ResponseMessage written = await raw.CreateItemStreamAsync(body, new PartitionKey("p1"), cancellationToken: Ct))
        {
            written.EnsureSuccessStatusCode();
        }

        Container withoutPolicy = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { JsonProcessor = processor });
        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => withoutPolicy.ReadItemAsync<JObject>("c1-as-3", new PartitionKey("p1"), cancellationToken: Ct));
        Assert.True(error.Kind is EncryptionErrorKind.MalformedDocument or EncryptionErrorKind.InvalidEncryptedValue, error.Kind.ToString());
        Assert.DoesNotContain("SECRET", error.ToString(), StringComparison.Ordinal);

        // This library without the policy reads format 101 itself.
        JObject read = (await withoutPolicy.ReadItemAsync<JObject>("c1", new PartitionKey("p1"), cancellationToken: Ct)).Resource;
        Assert.Equal("SECRET-Paris", (string?)read["address"]!["city"]);
    }
}
