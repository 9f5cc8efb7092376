using System.Text;
using Encryption.Custom.Cosmos;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>Typed and stream point operations through an encryption container, end to end.</summary>
[SdkSmoke]
public sealed class PointOperationTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static EncryptionItemRequestOptions EncryptSecrets => EncryptionFixture.Encrypt(EncryptionFixture.Dek1, SecretDocument.SecretPaths);

    [Fact]
    public async Task CreateItem_WithEncryptionOptions_StoresCiphertextAndReadsBackPlaintext()
    {
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);
        SecretDocument document = SecretDocument.Create();

        ItemResponse<SecretDocument> created = await container.CreateItemAsync(document, document.PartitionKey, EncryptSecrets, Ct);

        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        Assert.True(document.ValueEquals(created.Resource));
        Assert.True(created.RequestCharge > 0 || fixture.Endpoint.IsBundled);
        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.Equal(document.Name, (string?)stored["name"]);
        foreach (string path in new[] { "ssn", "salary", "rating", "active", "address", "tags" })
        {
            Assert.Equal(JTokenType.String, stored[path]!.Type);
        }

        Assert.DoesNotContain("123-45-6789", stored.ToString(), StringComparison.Ordinal);
        Assert.Equal(JTokenType.Null, stored["notes"]!.Type);
        Assert.Equal(EncryptionFixture.Dek1, (string?)stored["_ei"]!["_en"]);
        Assert.Equal(3, (int)stored["_ei"]!["_ef"]!);
        Assert.Equal(["/ssn", "/salary", "/rating", "/active", "/address", "/tags"], stored["_ei"]!["_ep"]!.Values<string>());
        ItemResponse<SecretDocument> read = await container.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.True(document.ValueEquals(read.Resource));
        Assert.Equal(created.ETag, read.ETag);
        Assert.NotNull(read.Diagnostics);
    }

    [Fact]
    public async Task CreateItemStream_WithEncryptionOptions_ReturnsDecryptedBodyAndStoresCiphertext()
    {
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);
        string id = Guid.NewGuid().ToString("N");
        string json = $$"""{"id":"{{id}}","pk":"p0","ssn":"999-00-1111","age":42}""";

        using ResponseMessage response = await container.CreateItemStreamAsync(ToStream(json), new PartitionKey("p0"), EncryptionFixture.Encrypt(EncryptionFixture.Dek2, "/ssn", "/age"), Ct);

        Assert.Equal(HttpStatusCode.Created, response.StatusCode);
        JObject body = await ReadJsonAsync(response.Content);
        Assert.Equal("999-00-1111", (string?)body["ssn"]);
        Assert.Equal(42, (int)body["age"]!);
        Assert.Null(body["_ei"]);
        JObject stored = await RawDocuments.ReadAsync(raw, id, new PartitionKey("p0"), Ct);
        Assert.NotEqual("999-00-1111", (string?)stored["ssn"]);
        Assert.Equal(EncryptionFixture.Dek2, (string?)stored["_ei"]!["_en"]);
        using ResponseMessage read = await container.ReadItemStreamAsync(id, new PartitionKey("p0"), cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.OK, read.StatusCode);
        JObject readBody = await ReadJsonAsync(read.Content);
        Assert.Equal("999-00-1111", (string?)readBody["ssn"]);
        Assert.Equal(42, (long)readBody["age"]!);
    }

    [Fact]
    public async Task UpsertAndReplace_TypedAndStream_KeepDocumentsEncrypted()
    {
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);
        SecretDocument document = SecretDocument.Create();

        ItemResponse<SecretDocument> upserted = await container.UpsertItemAsync(document, document.PartitionKey, EncryptSecrets, Ct);
        SecretDocument changed = document with { Ssn = "changed", Salary = 7 };
        ItemResponse<SecretDocument> replaced = await container.ReplaceItemAsync(changed, document.Id, document.PartitionKey, EncryptSecrets, Ct);
        SecretDocument upsertedAgain = changed with { Name = "Bob" };
        ItemResponse<SecretDocument> upsertedTwice = await container.UpsertItemAsync(upsertedAgain, document.PartitionKey, EncryptSecrets, Ct);

        Assert.Equal(HttpStatusCode.Created, upserted.StatusCode);
        Assert.True(changed.ValueEquals(replaced.Resource));
        Assert.Equal(HttpStatusCode.OK, upsertedTwice.StatusCode);
        Assert.True(upsertedAgain.ValueEquals(upsertedTwice.Resource));

        string streamJson = $$"""{"id":"{{document.Id}}","pk":"p0","ssn":"from-stream","salary":1}""";
        using (ResponseMessage streamReplace = await container.ReplaceItemStreamAsync(ToStream(streamJson), document.Id, document.PartitionKey, EncryptSecrets, Ct))
        {
            Assert.Equal(HttpStatusCode.OK, streamReplace.StatusCode);
            Assert.Equal("from-stream", (string?)(await ReadJsonAsync(streamReplace.Content))["ssn"]);
        }

        using (ResponseMessage streamUpsert = await container.UpsertItemStreamAsync(ToStream(streamJson.Replace("from-stream", "upserted", StringComparison.Ordinal)), document.PartitionKey, EncryptSecrets, Ct))
        {
            Assert.Equal(HttpStatusCode.OK, streamUpsert.StatusCode);
        }

        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.NotEqual("upserted", (string?)stored["ssn"]);
        Assert.Equal(["/ssn", "/salary"], stored["_ei"]!["_ep"]!.Values<string>());
        JObject read = await ReadJsonAsync((await container.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct)).Content);
        Assert.Equal("upserted", (string?)read["ssn"]);
    }

    [Fact]
    public async Task WriteWithoutEncryptionOptions_StoresPlaintextAndReadsIt()
    {
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);

        // Stored as a JSON number, the salary must stay within 2^53: the bundled server keeps numbers as doubles.
        SecretDocument document = SecretDocument.Create() with { Salary = 1234567 };

        await container.CreateItemAsync(document, cancellationToken: Ct);

        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.Equal(document.Ssn, (string?)stored["ssn"]);
        Assert.Null(stored["_ei"]);
        ItemResponse<SecretDocument> read = await container.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.True(document.ValueEquals(read.Resource));
    }

    [Fact]
    public async Task ReadItem_Missing_ThrowsNotFoundLikeTheSdk()
    {
        (_, Container container) = await fixture.GetSharedContainerAsync(Ct);

        CosmosException error = await Assert.ThrowsAsync<CosmosException>(() => container.ReadItemAsync<SecretDocument>("missing", new PartitionKey("p0"), cancellationToken: Ct));
        using ResponseMessage stream = await container.ReadItemStreamAsync("missing", new PartitionKey("p0"), cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.NotFound, error.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, stream.StatusCode);
        Assert.False(stream.IsSuccessStatusCode);
    }

    [Fact]
    public async Task DeleteItem_TypedAndStream_RemovesEncryptedItems()
    {
        (_, Container container) = await fixture.GetSharedContainerAsync(Ct);
        SecretDocument first = SecretDocument.Create();
        SecretDocument second = SecretDocument.Create();
        await container.CreateItemAsync(first, first.PartitionKey, EncryptSecrets, Ct);
        await container.CreateItemAsync(second, second.PartitionKey, EncryptSecrets, Ct);

        ItemResponse<SecretDocument> deleted = await container.DeleteItemAsync<SecretDocument>(first.Id, first.PartitionKey, cancellationToken: Ct);
        using ResponseMessage deletedStream = await container.DeleteItemStreamAsync(second.Id, second.PartitionKey, cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        Assert.Equal(HttpStatusCode.NoContent, deletedStream.StatusCode);
        using ResponseMessage gone = await container.ReadItemStreamAsync(first.Id, first.PartitionKey, cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, gone.StatusCode);
    }

    [Fact]
    public async Task CreateItem_ContentResponseOff_ReturnsNoResourceAndStoresCiphertext()
    {
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);
        SecretDocument document = SecretDocument.Create();
        EncryptionItemRequestOptions options = EncryptSecrets;
        options.EnableContentResponseOnWrite = false;

        ItemResponse<SecretDocument> created = await container.CreateItemAsync(document, document.PartitionKey, options, Ct);

        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        Assert.Null(created.Resource);
        Assert.False(string.IsNullOrEmpty(created.ETag));

        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.NotEqual(document.Ssn, (string?)stored["ssn"]);
    }

    [Fact]
    public async Task ReadItem_AsDecryptableItem_DecryptsOnDemandWithContext()
    {
        (_, Container container) = await fixture.GetSharedContainerAsync(Ct);
        SecretDocument document = SecretDocument.Create();
        await container.CreateItemAsync(document, document.PartitionKey, EncryptSecrets, Ct);

        ItemResponse<DecryptableItem> response = await container.ReadItemAsync<DecryptableItem>(document.Id, document.PartitionKey, cancellationToken: Ct);
        (SecretDocument item, DecryptionContext? context) = await response.Resource.GetItemAsync<SecretDocument>(Ct);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.False(string.IsNullOrEmpty(response.ETag));
        Assert.True(document.ValueEquals(item));
        DecryptionInfo info = Assert.Single(context!.DecryptionInfoList);
        Assert.Equal(EncryptionFixture.Dek1, info.DataEncryptionKeyId);
        Assert.Equal(["/ssn", "/salary", "/rating", "/active", "/address", "/tags"], info.PathsDecrypted);
    }

    [Fact]
    public async Task ReadItem_AsDecryptableItem_Missing_ThrowsNotFound()
    {
        (_, Container container) = await fixture.GetSharedContainerAsync(Ct);

        CosmosException error = await Assert.ThrowsAsync<CosmosException>(() => container.ReadItemAsync<DecryptableItem>("missing", new PartitionKey("p0"), cancellationToken: Ct));

        Assert.Equal(HttpStatusCode.NotFound, error.StatusCode);
    }

    internal static MemoryStream ToStream(string json) => new(Encoding.UTF8.GetBytes(json));

    internal static async Task<JObject> ReadJsonAsync(Stream content)
    {
        using var reader = new StreamReader(content);
        return JObject.Parse(await reader.ReadToEndAsync(Ct));
    }
}
