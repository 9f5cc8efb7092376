using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Policy;

/// <summary>
/// A policy that commits (<see cref="ContainerEncryptionPolicy.Commit"/>) against the bundled endpoint through a real
/// CosmosClient: documents round-trip, and a cell of an older version of the same document put back raw (which
/// binding alone accepts: same document, same selector) is refused with CellBindingMismatch naming the commitment.
/// </summary>
public sealed class CommittedPolicyTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public static TheoryData<JsonProcessor> Processors => [JsonProcessor.Stream, JsonProcessor.Newtonsoft];

    private static EncryptionContainerOptions Committed(JsonProcessor processor) => new()
    {
        JsonProcessor = processor,
        Policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, ["/ssn", "/address/city"]) { Bind = true, Commit = true },
    };

    private static JObject Person(string ssn) => JObject.Parse($$"""
        {"id":"alice","pk":"p1","name":"Alice","ssn":"SECRET-{{ssn}}","address":{"street":"1 Main St","city":"SECRET-city"} }
        """);

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task CommittedPolicy_RoundTrips_AndACellFromAnOlderVersionIsRefused(JsonProcessor processor)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: Committed(processor), cancellationToken: Ct);

        await container.CreateItemAsync(Person("old"), new PartitionKey("p1"), cancellationToken: Ct);
        JObject older = await RawDocuments.ReadAsync(raw, "alice", new PartitionKey("p1"), Ct);
        Assert.Contains("commit", older["_ei"]!["_ev"]!.ToString(Formatting.None), StringComparison.Ordinal);

        await container.UpsertItemAsync(Person("new"), new PartitionKey("p1"), cancellationToken: Ct);
        JObject read = (await container.ReadItemAsync<JObject>("alice", new PartitionKey("p1"), cancellationToken: Ct)).Resource;
        Assert.Equal("SECRET-new", (string)read["ssn"]!);

        JObject stored = await RawDocuments.ReadAsync(raw, "alice", new PartitionKey("p1"), Ct);
        stored["ssn"] = older["ssn"]!.DeepClone();
        foreach (string name in new[] { "_rid", "_self", "_etag", "_attachments", "_ts", "_lsn" })
        {
            stored.Remove(name);
        }

        using (MemoryStream body = new(System.Text.Encoding.UTF8.GetBytes(stored.ToString(Formatting.None))))
        using (ResponseMessage written = await raw.UpsertItemStreamAsync(body, new PartitionKey("p1"), cancellationToken: Ct))
        {
            written.EnsureSuccessStatusCode();
        }

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => container.ReadItemAsync<JObject>("alice", new PartitionKey("p1"), cancellationToken: Ct));
        Assert.Equal(EncryptionErrorKind.CellBindingMismatch, error.Kind);
        Assert.Contains("document commitment", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("SECRET", error.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task PatchOfACommittedDocument_IsAppliedByTheConditionalReplace_AndStaysReadable(JsonProcessor processor)
    {
        (Container _, Container container) = await fixture.CreateContainerAsync(options: Committed(processor), cancellationToken: Ct);
        await container.CreateItemAsync(Person("one"), new PartitionKey("p1"), cancellationToken: Ct);

        await container.PatchItemAsync<JObject>("alice", new PartitionKey("p1"), [PatchOperation.Remove("/address/city")], cancellationToken: Ct);
        await container.PatchItemAsync<JObject>("alice", new PartitionKey("p1"), [PatchOperation.Set("/ssn", "SECRET-two")], cancellationToken: Ct);

        JObject read = (await container.ReadItemAsync<JObject>("alice", new PartitionKey("p1"), cancellationToken: Ct)).Resource;
        Assert.Equal("SECRET-two", (string)read["ssn"]!);
        Assert.Null(read["address"]!["city"]);
    }

    // Issue 32: a row that leaves out an encrypted property, or lists them in another order than the document stores
    // them, cannot be checked against the commitment; it failed on decryption as a CellBindingMismatch (reading like
    // tampering). A projection of an encrypted property is refused before sending, naming it; whole documents decrypt.
    [Theory]
    [MemberData(nameof(Processors))]
    public async Task AProjectionOfAnEncryptedProperty_IsRefusedBeforeSending_TheWholeDocumentIsDecrypted(JsonProcessor processor)
    {
        (_, Container container) = await fixture.CreateContainerAsync(options: Committed(processor), cancellationToken: Ct);
        await container.CreateItemAsync(Person("p"), new PartitionKey("p1"), cancellationToken: Ct);

        foreach (string projection in new[] { "SELECT c.id, c.pk, c.address, c._ei, c._ex FROM c", "SELECT c.id, c.pk, c.address, c.ssn, c._ei, c._ex FROM c", "SELECT c.id, c.pk, c.ssn, c.address, c._ei, c._ex FROM c" })
        {
            NotSupportedException refused = Assert.Throws<NotSupportedException>(() => container.GetItemQueryIterator<JObject>(projection));
            Assert.Contains("'address'", refused.Message, StringComparison.Ordinal);
        }

        using FeedIterator<JObject> full = container.GetItemQueryIterator<JObject>("SELECT * FROM c");
        JObject row = Assert.Single(await full.ReadNextAsync(Ct));
        Assert.Equal("SECRET-p", (string)row["ssn"]!);
        Assert.Equal("SECRET-city", (string)row["address"]!["city"]!);
    }
}
