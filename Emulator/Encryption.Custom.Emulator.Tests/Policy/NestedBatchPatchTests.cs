using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Policy.NestedCustomers;

namespace Encryption.Custom.Emulator.Tests.Policy;

/// <summary>
/// Patch inside a transactional batch, and patch through a bulk client, under a format 101 policy (nested selectors,
/// values bound to their document) against the bundled endpoint through a real CosmosClient: a batch patching nested
/// leaves and ancestors applies atomically and stores ciphertext there; a batch holding a patch inside a cell, or one a
/// single patch would apply as a conditional replace, is refused before it is sent and writes nothing; bulk patches are
/// single patches (classified, rewritten, falling back to a replace).
/// </summary>
public sealed class NestedBatchPatchTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static readonly PartitionKey s_pk = new("p1");

    public static TheoryData<JsonProcessor, bool> ProcessorsAndBinding => new()
    {
        { JsonProcessor.Stream, true }, { JsonProcessor.Newtonsoft, true }, { JsonProcessor.Stream, false },
    };

    [Theory]
    [MemberData(nameof(ProcessorsAndBinding))]
    public async Task BatchOfNestedLeafAndAncestorPatches_AppliesAtomically_AndIsStoredAsCipherText(JsonProcessor processor, bool bind)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: Bound(processor, bind: bind), cancellationToken: Ct);
        await container.CreateItemAsync(Customer("c1"), s_pk, cancellationToken: Ct);
        await container.CreateItemAsync(Customer("c2"), s_pk, cancellationToken: Ct);
        JObject before = await RawDocuments.ReadAsync(raw, "c1", s_pk, Ct);

        using TransactionalBatchResponse response = await container.CreateTransactionalBatch(s_pk)
            .PatchItem("c1", [PatchOperation.Set("/address/city", "SECRET-Lyon"), PatchOperation.Replace("/cards/1/number", "SECRET-9999"), PatchOperation.Set("/name", "Ada L.")])
            .PatchItem("c2", [PatchOperation.Set("/address", new { street = "2 Side St", city = "SECRET-Rome" }), PatchOperation.Add("/cards/-", new { number = "SECRET-3700", expiry = "03/33" })])
            .CreateItem(Customer("c3"))
            .ExecuteAsync(Ct);

        Assert.True(response.IsSuccessStatusCode, response.ErrorMessage);
        Assert.Equal("SECRET-Lyon", (string?)response.GetOperationResultAtIndex<JObject>(0).Resource["address"]!["city"]);
        JObject c1 = await ReadAsync(container, "c1");
        Assert.Equal("SECRET-Lyon", (string?)c1["address"]!["city"]);
        Assert.Equal(["SECRET-4111", "SECRET-9999"], c1["cards"]!.Select(c => (string)c["number"]!));
        Assert.Equal("Ada L.", (string?)c1["name"]);
        JObject c2 = await ReadAsync(container, "c2");
        Assert.Equal("SECRET-Rome", (string?)c2["address"]!["city"]);
        Assert.Equal(["SECRET-4111", "SECRET-5500", "SECRET-3700"], c2["cards"]!.Select(c => (string)c["number"]!));
        Assert.Equal("SECRET-Paris", (string?)(await ReadAsync(container, "c3"))["address"]!["city"]);

        JObject stored = await AssertStoredEncryptedAsync(raw, "c1");
        Assert.NotEqual((string?)before["address"]!["city"], (string?)stored["address"]!["city"]);
        Assert.Equal((string?)before["cards"]![0]!["number"], (string?)stored["cards"]![0]!["number"]);
        JObject stored2 = await AssertStoredEncryptedAsync(raw, "c2");
        Assert.Equal("2 Side St", (string?)stored2["address"]!["street"]);
        Assert.Equal("03/33", (string?)stored2["cards"]![2]!["expiry"]);
        await AssertStoredEncryptedAsync(raw, "c3");
    }

    [Fact]
    public async Task BatchWithAPatchInsideACell_IsRefusedBeforeSending_AndWritesNothing()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: Bound(JsonProcessor.Stream), cancellationToken: Ct);
        await container.CreateItemAsync(Customer("c1"), s_pk, cancellationToken: Ct);
        string etag = (await RawDocuments.ReadAsync(raw, "c1", s_pk, Ct))["_etag"]!.ToString();

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => container.CreateTransactionalBatch(s_pk)
            .CreateItem(Customer("c2"))
            .PatchItem("c1", [PatchOperation.Set("/name", "Ada L.")])
            .PatchItem("c1", [PatchOperation.Set("/cards/0/number/first", "SECRET-x")])
            .ExecuteAsync(Ct));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Contains("inside the value selected by '/cards/[]/number'", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("SECRET", error.ToString(), StringComparison.Ordinal);
        Assert.Equal(etag, (await RawDocuments.ReadAsync(raw, "c1", s_pk, Ct))["_etag"]!.ToString());
        CosmosException missing = await Assert.ThrowsAsync<CosmosException>(() => raw.ReadItemAsync<JObject>("c2", s_pk, cancellationToken: Ct));
        Assert.Equal(System.Net.HttpStatusCode.NotFound, missing.StatusCode);
    }

    [Fact]
    public async Task BatchWithAPatchASinglePatchWouldReplace_IsRefusedBeforeSending_AndWritesNothing()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: Bound(JsonProcessor.Stream), cancellationToken: Ct);
        await container.CreateItemAsync(Customer("c1"), s_pk, cancellationToken: Ct);
        string etag = (await RawDocuments.ReadAsync(raw, "c1", s_pk, Ct))["_etag"]!.ToString();
        PatchOperation[] eleven =
        [
            .. Enumerable.Range(0, 9).Select(i => PatchOperation.Set($"/extra{i}", i)),
            PatchOperation.Set("/address/city", "SECRET-Oslo"),
            PatchOperation.Add("/cards/-", new { number = "SECRET-3700", expiry = "03/33" }),
        ];

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => container.CreateTransactionalBatch(s_pk)
            .CreateItem(Customer("c2"))
            .PatchItem("c1", eleven)
            .ExecuteAsync(Ct));

        Assert.Contains("operation 1 of the transactional batch", error.Message, StringComparison.Ordinal);
        Assert.Contains("single PatchItemAsync would apply it", error.Message, StringComparison.Ordinal);
        Assert.Equal(etag, (await RawDocuments.ReadAsync(raw, "c1", s_pk, Ct))["_etag"]!.ToString());

        // The same operations as a single patch are applied (as a conditional replace).
        await container.PatchItemAsync<JObject>("c1", s_pk, eleven, cancellationToken: Ct);
        Assert.Equal("SECRET-Oslo", (string?)(await ReadAsync(container, "c1"))["address"]!["city"]);
        await AssertStoredEncryptedAsync(raw, "c1");
    }

    [Fact]
    public async Task BulkPatches_AreSinglePatches_ClassifiedRewrittenAndFallingBack()
    {
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        using CosmosClient bulkClient = fixture.Endpoint.CreateClient(options => options.AllowBulkExecution = true);
        Container container = bulkClient.GetContainer(fixture.Database.Id, raw.Id).WithEncryptor(fixture.Encryptor, Bound(JsonProcessor.Stream));
        string[] ids = [.. Enumerable.Range(0, 12).Select(i => $"b{i}")];
        await Task.WhenAll(ids.Select(id => container.CreateItemAsync(Customer(id), s_pk, cancellationToken: Ct)));

        // Even ids: a nested leaf and an ancestor (sent as a patch); odd ids: eleven operations (a conditional replace).
        await Task.WhenAll(ids.Select((id, i) => container.PatchItemAsync<JObject>(id, s_pk, i % 2 == 0
            ? [PatchOperation.Set("/address/city", $"SECRET-city-{i}"), PatchOperation.Set("/cards/0", new { number = $"SECRET-card-{i}", expiry = "05/35" })]
            : [.. Enumerable.Range(0, 10).Select(k => PatchOperation.Set($"/extra{k}", k)), PatchOperation.Set("/address/city", $"SECRET-city-{i}")],
            cancellationToken: Ct)));

        for (int i = 0; i < ids.Length; i++)
        {
            JObject read = await ReadAsync(container, ids[i]);
            Assert.Equal($"SECRET-city-{i}", (string?)read["address"]!["city"]);
            Assert.Equal(i % 2 == 0 ? $"SECRET-card-{i}" : "SECRET-4111", (string?)read["cards"]![0]!["number"]);
            await AssertStoredEncryptedAsync(raw, ids[i]);
        }

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => container.PatchItemAsync<JObject>("b0", s_pk, [PatchOperation.Set("/address/city/x", "SECRET-x")], cancellationToken: Ct));
        Assert.Contains("inside the value selected by '/address/city'", error.Message, StringComparison.Ordinal);
    }
}
