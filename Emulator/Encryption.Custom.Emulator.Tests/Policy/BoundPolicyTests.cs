using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Policy;

/// <summary>
/// A policy that binds (<see cref="ContainerEncryptionPolicy.Bind"/>) against the bundled endpoint through a real
/// CosmosClient: the container binds its documents to its database, its id and its partition-key paths, so values
/// round-trip through point operations and queries, while a cell copied raw into another document, or a whole
/// document copied raw into another container with the same policy, is refused with CellBindingMismatch.
/// </summary>
public sealed class BoundPolicyTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public static TheoryData<JsonProcessor> Processors => [JsonProcessor.Stream, JsonProcessor.Newtonsoft];

    private static EncryptionContainerOptions Bound(JsonProcessor processor) => new()
    {
        JsonProcessor = processor,
        Policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, ["/ssn", "/address/city"]) { Bind = true },
    };

    private static JObject Person(string id, string name) => JObject.Parse($$"""
        {"id":"{{id}}","pk":"p1","name":"{{name}}","ssn":"SECRET-ssn-{{id}}","address":{"street":"1 Main St","city":"SECRET-city-{{id}}"} }
        """);

    private static JObject WithoutSystemProperties(JObject document)
    {
        var copy = (JObject)document.DeepClone();
        foreach (string name in new[] { "_rid", "_self", "_etag", "_attachments", "_ts", "_lsn" })
        {
            copy.Remove(name);
        }

        return copy;
    }

    private static async Task WriteRawAsync(Container raw, JObject document)
    {
        using MemoryStream body = new(System.Text.Encoding.UTF8.GetBytes(WithoutSystemProperties(document).ToString(Formatting.None)));
        using ResponseMessage written = await raw.UpsertItemStreamAsync(body, new PartitionKey("p1"), cancellationToken: Ct);
        written.EnsureSuccessStatusCode();
    }

    private static async Task<List<JObject>> QueryAllAsync(Container container, string query)
    {
        var all = new List<JObject>();
        using FeedIterator<JObject> iterator = container.GetItemQueryIterator<JObject>(query);
        while (iterator.HasMoreResults)
        {
            all.AddRange(await iterator.ReadNextAsync(Ct));
        }

        return all;
    }

    private static void AssertBindingMismatch(EncryptionException error)
    {
        Assert.Equal(EncryptionErrorKind.CellBindingMismatch, error.Kind);
        Assert.DoesNotContain("SECRET", error.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task BoundPolicy_RoundTripsCreateReadBatchQuery_StoredAsCipherText(JsonProcessor processor)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: Bound(processor), cancellationToken: Ct);
        JObject alice = Person("alice", "Alice");
        JObject bob = Person("bob", "Bob");

        await container.CreateItemAsync(alice, new PartitionKey("p1"), cancellationToken: Ct);
        await container.UpsertItemAsync(bob, new PartitionKey("p1"), cancellationToken: Ct);

        JObject stored = await RawDocuments.ReadAsync(raw, "alice", new PartitionKey("p1"), Ct);
        Assert.DoesNotContain("SECRET", stored.ToString(Formatting.None), StringComparison.Ordinal);
        Assert.Equal(101, (int)stored["_ei"]!["_ef"]!);

        JObject read = (await container.ReadItemAsync<JObject>("alice", new PartitionKey("p1"), cancellationToken: Ct)).Resource;
        Assert.True(JToken.DeepEquals(alice, WithoutSystemProperties(read)), read.ToString());

        JObject carol = Person("carol", "Carol");
        using (TransactionalBatchResponse batch = await container.CreateTransactionalBatch(new PartitionKey("p1")).CreateItem(carol).ExecuteAsync(Ct))
        {
            Assert.True(batch.IsSuccessStatusCode, batch.StatusCode.ToString());
        }

        JObject storedCarol = await RawDocuments.ReadAsync(raw, "carol", new PartitionKey("p1"), Ct);
        Assert.DoesNotContain("SECRET", storedCarol.ToString(Formatting.None), StringComparison.Ordinal);

        List<JObject> all = await QueryAllAsync(container, "SELECT * FROM c");
        Assert.Equal(3, all.Count);
        Assert.True(JToken.DeepEquals(carol, WithoutSystemProperties(all.Single(d => (string?)d["id"] == "carol"))));
        Assert.True(JToken.DeepEquals(alice, WithoutSystemProperties(all.Single(d => (string?)d["id"] == "alice"))));
        Assert.True(JToken.DeepEquals(bob, WithoutSystemProperties(all.Single(d => (string?)d["id"] == "bob"))));
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task AlicesCellCopiedRawIntoBobsDocument_IsRefusedOnEveryReadPath(JsonProcessor processor)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: Bound(processor), cancellationToken: Ct);
        await container.CreateItemAsync(Person("alice", "Alice"), new PartitionKey("p1"), cancellationToken: Ct);
        await container.CreateItemAsync(Person("bob", "Bob"), new PartitionKey("p1"), cancellationToken: Ct);

        // Through the plain container: Bob's stored document gets Alice's ciphertext for /ssn.
        JObject storedAlice = await RawDocuments.ReadAsync(raw, "alice", new PartitionKey("p1"), Ct);
        JObject storedBob = await RawDocuments.ReadAsync(raw, "bob", new PartitionKey("p1"), Ct);
        Assert.NotEqual((string?)storedAlice["ssn"], (string?)storedBob["ssn"]);
        storedBob["ssn"] = storedAlice["ssn"]!.DeepClone();
        await WriteRawAsync(raw, storedBob);

        // A fresh wrapper: its first operation is this read, so binding happens on the read path.
        Container reader = raw.WithEncryptor(fixture.Encryptor, Bound(processor));
        AssertBindingMismatch(await Assert.ThrowsAsync<EncryptionException>(() => reader.ReadItemAsync<JObject>("bob", new PartitionKey("p1"), cancellationToken: Ct)));
        AssertBindingMismatch(await Assert.ThrowsAsync<EncryptionException>(() => container.ReadItemAsync<JObject>("bob", new PartitionKey("p1"), cancellationToken: Ct)));
        AssertBindingMismatch(await Assert.ThrowsAsync<EncryptionException>(() => QueryAllAsync(raw.WithEncryptor(fixture.Encryptor, Bound(processor)), "SELECT * FROM c WHERE c.id = 'bob'")));
        AssertBindingMismatch(await Assert.ThrowsAsync<EncryptionException>(() => container.ReadManyItemsAsync<JObject>([("bob", new PartitionKey("p1"))], cancellationToken: Ct)));

        // Each read path as a fresh wrapper's first operation: stream, change feed, DecryptableItem.
        Container Fresh() => raw.WithEncryptor(fixture.Encryptor, Bound(processor));
        AssertBindingMismatch(await Assert.ThrowsAsync<EncryptionException>(() => Fresh().ReadItemStreamAsync("bob", new PartitionKey("p1"), cancellationToken: Ct)));
        AssertBindingMismatch(await Assert.ThrowsAsync<EncryptionException>(() => Fresh().GetChangeFeedIterator<JObject>(ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion).ReadChangesAsync(Ct)));
        DecryptableItem item = (await Fresh().ReadItemAsync<DecryptableItem>("bob", new PartitionKey("p1"), cancellationToken: Ct)).Resource;
        await using (item)
        {
            AssertBindingMismatch(await Assert.ThrowsAsync<EncryptionException>(() => item.GetItemAsync<JObject>(Ct)));
        }

        // Alice herself still reads.
        JObject alice = (await reader.ReadItemAsync<JObject>("alice", new PartitionKey("p1"), cancellationToken: Ct)).Resource;
        Assert.Equal("SECRET-ssn-alice", (string?)alice["ssn"]);
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task DocumentCopiedRawIntoAnotherContainerWithTheSamePolicy_IsRefused(JsonProcessor processor)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: Bound(processor), cancellationToken: Ct);
        (Container otherRaw, Container other) = await fixture.CreateContainerAsync(options: Bound(processor), cancellationToken: Ct);
        await container.CreateItemAsync(Person("alice", "Alice"), new PartitionKey("p1"), cancellationToken: Ct);

        JObject stored = await RawDocuments.ReadAsync(raw, "alice", new PartitionKey("p1"), Ct);
        await WriteRawAsync(otherRaw, stored);

        AssertBindingMismatch(await Assert.ThrowsAsync<EncryptionException>(() => other.ReadItemAsync<JObject>("alice", new PartitionKey("p1"), cancellationToken: Ct)));
        AssertBindingMismatch(await Assert.ThrowsAsync<EncryptionException>(() => QueryAllAsync(other, "SELECT * FROM c")));

        // The original still reads in its own container.
        JObject read = (await container.ReadItemAsync<JObject>("alice", new PartitionKey("p1"), cancellationToken: Ct)).Resource;
        Assert.Equal("SECRET-city-alice", (string?)read["address"]!["city"]);
    }

    [Fact]
    public async Task ContainerWithANestedPartitionKeyPath_CannotBind_AndWritesNothing()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync("/tenant/id", Bound(JsonProcessor.Stream), Ct);
        JObject document = JObject.Parse("""{"id":"n1","tenant":{"id":"t1"},"ssn":"SECRET-ssn-n1","address":{"city":"SECRET-city-n1"} }""");

        EncryptionException refused = await Assert.ThrowsAsync<EncryptionException>(() => container.CreateItemAsync(document, new PartitionKey("t1"), cancellationToken: Ct));
        Assert.Equal(EncryptionErrorKind.InvalidOptions, refused.Kind);
        Assert.Contains("/tenant/id", refused.Message, StringComparison.Ordinal);
        using ResponseMessage stored = await raw.ReadItemStreamAsync("n1", new PartitionKey("t1"), cancellationToken: Ct);
        Assert.Equal(System.Net.HttpStatusCode.NotFound, stored.StatusCode);
    }
}
