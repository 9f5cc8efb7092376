using Encryption.Custom.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>
/// Transactional batch and bulk execution through an encryption container, end to end (the batch logic is also
/// covered by unit tests at the container seam).
/// </summary>
[SdkSmoke]
public sealed class BatchAndBulkTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static EncryptionTransactionalBatchItemRequestOptions EncryptSecrets => new()
    {
        EncryptionOptions = EncryptionFixture.Options(EncryptionFixture.Dek1, SecretDocument.SecretPaths),
    };

    [Fact]
    public async Task Batch_CreateReplaceUpsertRead_EncryptsBodiesAndDecryptsResults()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        SecretDocument first = SecretDocument.Create("p0");
        SecretDocument second = SecretDocument.Create("p0");
        SecretDocument third = SecretDocument.Create("p0");

        using TransactionalBatchResponse response = await container.CreateTransactionalBatch(new PartitionKey("p0"))
            .CreateItem(first, EncryptSecrets)
            .CreateItemStream(PointOperationTests.ToStream(Newtonsoft.Json.JsonConvert.SerializeObject(second)), EncryptSecrets)
            .ReplaceItem(first.Id, first with { Ssn = "replaced" }, EncryptSecrets)
            .UpsertItem(third, EncryptSecrets)
            .ReadItem(second.Id)
            .ExecuteAsync(Ct);

        Assert.True(response.IsSuccessStatusCode, $"batch failed: {response.StatusCode} {response.ErrorMessage}");
        Assert.Equal(5, response.Count);
        Assert.True((first with { Ssn = "replaced" }).ValueEquals(response.GetOperationResultAtIndex<SecretDocument>(2).Resource));
        Assert.True(second.ValueEquals(response.GetOperationResultAtIndex<SecretDocument>(4).Resource));
        JObject readBody = await PointOperationTests.ReadJsonAsync(response[4].ResourceStream);
        Assert.Equal(second.Ssn, (string?)readBody["ssn"]);
        foreach (SecretDocument document in new[] { first, second, third })
        {
            JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
            Assert.Equal(EncryptionFixture.Dek1, (string?)stored["_ei"]!["_en"]);
            Assert.NotEqual(document.Ssn, (string?)stored["ssn"]);
        }
    }

    [Fact]
    public async Task Batch_PatchOnEncryptedPathAndAfterCreateInTheSameBatch_StoresCiphertext()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        SecretDocument existing = SecretDocument.Create("p0");
        await container.CreateItemAsync(existing, existing.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek2, SecretDocument.SecretPaths), Ct);
        SecretDocument created = SecretDocument.Create("p0");

        using TransactionalBatchResponse response = await container.CreateTransactionalBatch(new PartitionKey("p0"))
            .PatchItem(existing.Id, [PatchOperation.Set("/ssn", "patched-existing")])
            .CreateItem(created, EncryptSecrets)
            .PatchItem(created.Id, [PatchOperation.Set("/ssn", "patched-new"), PatchOperation.Set("/name", "N")])
            .ExecuteAsync(Ct);

        Assert.True(response.IsSuccessStatusCode, $"batch failed: {response.StatusCode} {response.ErrorMessage}");
        Assert.Equal("patched-existing", response.GetOperationResultAtIndex<SecretDocument>(0).Resource.Ssn);
        JObject storedExisting = await RawDocuments.ReadAsync(raw, existing.Id, existing.PartitionKey, Ct);
        JObject storedCreated = await RawDocuments.ReadAsync(raw, created.Id, created.PartitionKey, Ct);
        Assert.NotEqual("patched-existing", (string?)storedExisting["ssn"]);
        Assert.NotEqual("patched-new", (string?)storedCreated["ssn"]);
        ItemResponse<SecretDocument> read = await container.ReadItemAsync<SecretDocument>(created.Id, created.PartitionKey, cancellationToken: Ct);
        Assert.Equal(("patched-new", "N"), (read.Resource.Ssn, read.Resource.Name));
    }

    [Fact]
    public async Task Batch_OneOperationFails_CommitsNothing()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        SecretDocument existing = SecretDocument.Create("p0");
        await container.CreateItemAsync(existing, existing.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, "/ssn"), Ct);
        SecretDocument fresh = SecretDocument.Create("p0");

        using TransactionalBatchResponse response = await container.CreateTransactionalBatch(new PartitionKey("p0"))
            .CreateItem(fresh, EncryptSecrets)
            .CreateItem(existing, EncryptSecrets)
            .ExecuteAsync(Ct);

        Assert.False(response.IsSuccessStatusCode);
        Assert.Equal(HttpStatusCode.Conflict, response[1].StatusCode);
        using ResponseMessage read = await raw.ReadItemStreamAsync(fresh.Id, fresh.PartitionKey, cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, read.StatusCode);
    }

    [Fact]
    public async Task Bulk_ManyConcurrentEncryptedWritesAndReads_AllRoundTrip()
    {
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        using CosmosClient bulkClient = fixture.Endpoint.CreateClient(options => options.AllowBulkExecution = true);
        Container container = bulkClient.GetContainer(fixture.Database.Id, raw.Id).WithEncryptor(fixture.Encryptor);
        SecretDocument[] documents = [.. Enumerable.Range(0, 100).Select(i => SecretDocument.Create($"p{i % 7}") with { Ssn = $"bulk-{i}" })];
        EncryptionItemRequestOptions options = EncryptionFixture.Encrypt(EncryptionFixture.Dek1, SecretDocument.SecretPaths);

        ItemResponse<SecretDocument>[] created = await Task.WhenAll(documents.Select(d => container.CreateItemAsync(d, d.PartitionKey, options, Ct)));
        ItemResponse<SecretDocument>[] read = await Task.WhenAll(documents.Select(d => container.ReadItemAsync<SecretDocument>(d.Id, d.PartitionKey, cancellationToken: Ct)));

        Assert.All(created, r => Assert.Equal(HttpStatusCode.Created, r.StatusCode));
        for (int i = 0; i < documents.Length; i++)
        {
            Assert.True(documents[i].ValueEquals(read[i].Resource));
        }

        JObject stored = await RawDocuments.ReadAsync(raw, documents[42].Id, documents[42].PartitionKey, Ct);
        Assert.NotEqual("bulk-42", (string?)stored["ssn"]);
    }
}
