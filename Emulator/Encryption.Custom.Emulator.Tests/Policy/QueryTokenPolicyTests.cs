using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Policy;

/// <summary>
/// A policy with range and prefix paths against the bundled endpoint through a real CosmosClient: every write path
/// (create, replace, upsert, stream, transactional batch, bulk, patch through the conditional replace) stores the
/// tokens of the value it stores (tokens are deterministic per path and value, so a document rewritten to a value
/// carries exactly the tokens of another document holding it), and a token copied from another document is refused.
/// </summary>
public sealed class QueryTokenPolicyTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public static TheoryData<JsonProcessor> Processors => [JsonProcessor.Stream, JsonProcessor.Newtonsoft];

    private static EncryptionContainerOptions WithTokens(JsonProcessor processor) => new()
    {
        JsonProcessor = processor,
        Policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1,
        [
            new EncryptionPolicyIncludedPath("/name") { Queries = new PrefixQueryOptions { IgnoreCase = true } },
            new EncryptionPolicyIncludedPath("/age") { Queries = new IntegerRangeQueryOptions(0, 150) },
            new EncryptionPolicyIncludedPath("/ssn"),
        ]),
    };

    private static JObject Person(string id, string name, int age) =>
        JObject.Parse($$"""{"id":"{{id}}","pk":"p1","name":"{{name}}","age":{{age}},"ssn":"SECRET-{{id}}"}""");

    private static async Task<JToken> TokensAsync(Container raw, string id, string path) =>
        (await RawDocuments.ReadAsync(raw, id, new PartitionKey("p1"), Ct))["_q"]![path]!;

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task EveryWritePath_StoresTheTokensOfTheStoredValue(JsonProcessor processor)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: WithTokens(processor), cancellationToken: Ct);
        await container.CreateItemAsync(Person("ref40", "Zoe", 40), new PartitionKey("p1"), cancellationToken: Ct);
        await container.CreateItemAsync(Person("ref50", "Yan", 50), new PartitionKey("p1"), cancellationToken: Ct);
        JToken age40 = await TokensAsync(raw, "ref40", "/age");
        JToken age50 = await TokensAsync(raw, "ref50", "/age");
        Assert.False(JToken.DeepEquals(age40, age50));

        await container.CreateItemAsync(Person("a", "Ada", 30), new PartitionKey("p1"), cancellationToken: Ct);
        await container.ReplaceItemAsync(Person("a", "Ada", 40), "a", new PartitionKey("p1"), cancellationToken: Ct);
        Assert.True(JToken.DeepEquals(age40, await TokensAsync(raw, "a", "/age")), "replace");
        await container.UpsertItemAsync(Person("a", "Ada", 50), new PartitionKey("p1"), cancellationToken: Ct);
        Assert.True(JToken.DeepEquals(age50, await TokensAsync(raw, "a", "/age")), "upsert");

        using (var body = new MemoryStream(System.Text.Encoding.UTF8.GetBytes(Person("s", "Sam", 40).ToString(Formatting.None))))
        using (ResponseMessage created = await container.CreateItemStreamAsync(body, new PartitionKey("p1"), cancellationToken: Ct))
        {
            created.EnsureSuccessStatusCode();
        }

        Assert.True(JToken.DeepEquals(age40, await TokensAsync(raw, "s", "/age")), "stream create");

        using (TransactionalBatchResponse batch = await container.CreateTransactionalBatch(new PartitionKey("p1"))
            .CreateItem(Person("b1", "Bea", 50))
            .UpsertItem(Person("a", "Ada", 40))
            .ExecuteAsync(Ct))
        {
            Assert.True(batch.IsSuccessStatusCode, $"batch failed: {batch.StatusCode} {batch.ErrorMessage}");
        }

        Assert.True(JToken.DeepEquals(age50, await TokensAsync(raw, "b1", "/age")), "batch create");
        Assert.True(JToken.DeepEquals(age40, await TokensAsync(raw, "a", "/age")), "batch upsert");

        using CosmosClient bulkClient = fixture.Endpoint.CreateClient(options => options.AllowBulkExecution = true);
        Container bulk = bulkClient.GetContainer(raw.Database.Id, raw.Id).WithEncryptor(fixture.Encryptor, WithTokens(processor));
        await Task.WhenAll(Enumerable.Range(0, 6).Select(i => bulk.CreateItemAsync(Person($"bulk{i}", "Bo", 40 + (10 * (i % 2))), new PartitionKey("p1"), cancellationToken: Ct)));
        for (int i = 0; i < 6; i++)
        {
            Assert.True(JToken.DeepEquals(i % 2 == 0 ? age40 : age50, await TokensAsync(raw, $"bulk{i}", "/age")), $"bulk {i}");
        }

        JObject read = (await container.ReadItemAsync<JObject>("a", new PartitionKey("p1"), cancellationToken: Ct)).Resource;
        Assert.True(JToken.DeepEquals(Person("a", "Ada", 40), new JObject(read.Properties().Where(p => !p.Name.StartsWith('_')))));
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task Patch_OfATokenPath_IsAppliedByTheConditionalReplace_AndTheTokensFollow(JsonProcessor processor)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: WithTokens(processor), cancellationToken: Ct);
        await container.CreateItemAsync(Person("ref", "Zoe", 77), new PartitionKey("p1"), cancellationToken: Ct);
        await container.CreateItemAsync(Person("a", "Ada", 30), new PartitionKey("p1"), cancellationToken: Ct);

        await container.PatchItemAsync<JObject>("a", new PartitionKey("p1"), [PatchOperation.Set("/age", 77), PatchOperation.Set("/name", "Zoe")], cancellationToken: Ct);
        Assert.True(JToken.DeepEquals(await TokensAsync(raw, "ref", "/age"), await TokensAsync(raw, "a", "/age")));
        Assert.True(JToken.DeepEquals(await TokensAsync(raw, "ref", "/name"), await TokensAsync(raw, "a", "/name")));
        Assert.Equal(77, (int)(await container.ReadItemAsync<JObject>("a", new PartitionKey("p1"), cancellationToken: Ct)).Resource["age"]!);

        await container.PatchItemAsync<JObject>("a", new PartitionKey("p1"), [PatchOperation.Remove("/age")], cancellationToken: Ct);
        Assert.Null((await RawDocuments.ReadAsync(raw, "a", new PartitionKey("p1"), Ct))["_q"]!["/age"]);

        EncryptionException reserved = await Assert.ThrowsAsync<EncryptionException>(() => container.PatchItemAsync<JObject>("a", new PartitionKey("p1"), [PatchOperation.Remove("/_q")], cancellationToken: Ct));
        Assert.Equal(EncryptionErrorKind.InvalidOptions, reserved.Kind);

        EncryptionException inBatch = await Assert.ThrowsAsync<EncryptionException>(() => container.CreateTransactionalBatch(new PartitionKey("p1"))
            .PatchItem("a", [PatchOperation.Set("/age", 5)])
            .ExecuteAsync(Ct));
        Assert.Contains("query tokens", inBatch.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task ATokenCopiedFromAnotherDocument_IsRefused(JsonProcessor processor)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: WithTokens(processor), cancellationToken: Ct);
        await container.CreateItemAsync(Person("a", "Ada", 30), new PartitionKey("p1"), cancellationToken: Ct);
        await container.CreateItemAsync(Person("b", "Bob", 60), new PartitionKey("p1"), cancellationToken: Ct);

        JObject stored = await RawDocuments.ReadAsync(raw, "a", new PartitionKey("p1"), Ct);
        // The leaf token (last): 30 and 60 share the coarse nodes, so an upper-level token would be the same.
        stored["_q"]!["/age"]![3] = (await TokensAsync(raw, "b", "/age"))[3]!.DeepClone();
        foreach (string name in new[] { "_rid", "_self", "_etag", "_attachments", "_ts", "_lsn" })
        {
            stored.Remove(name);
        }

        using (var body = new MemoryStream(System.Text.Encoding.UTF8.GetBytes(stored.ToString(Formatting.None))))
        using (ResponseMessage written = await raw.UpsertItemStreamAsync(body, new PartitionKey("p1"), cancellationToken: Ct))
        {
            written.EnsureSuccessStatusCode();
        }

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => container.ReadItemAsync<JObject>("a", new PartitionKey("p1"), cancellationToken: Ct));
        Assert.Equal(EncryptionErrorKind.CellBindingMismatch, error.Kind);
        Assert.Contains("/age", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("SECRET", error.ToString(), StringComparison.Ordinal);
    }
}
