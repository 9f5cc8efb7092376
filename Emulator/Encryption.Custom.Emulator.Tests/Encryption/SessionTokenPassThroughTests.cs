using System.Text;
using Encryption.Custom.Cosmos;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>
/// A session-consistency application takes the session token from each response and sends it with later
/// reads. Every response the encryption container rebuilds (decrypted items, streams, feed pages, batch
/// results) must hand back the token the container underneath received for that request, as recorded by a
/// request handler in the client.
/// </summary>
public sealed class SessionTokenPassThroughTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>, IDisposable
{
    private readonly SessionTokenRecorder _recorder = new();
    private CosmosClient? _client;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static EncryptionItemRequestOptions EncryptSecrets => EncryptionFixture.Encrypt(EncryptionFixture.Dek1, SecretDocument.SecretPaths);

    private async Task<(Container Raw, Container Encrypted)> CreateContainerAsync(bool bulk = false)
    {
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        _client ??= fixture.Endpoint.CreateClient(options =>
        {
            options.CustomHandlers.Add(_recorder);
            options.AllowBulkExecution = bulk;
        });
        return (raw, _client.GetContainer(fixture.Database.Id, raw.Id).WithEncryptor(fixture.Encryptor));
    }

    private void AssertPassedThrough(Container container, string? token)
    {
        Assert.False(string.IsNullOrEmpty(token), "The encryption container's response carries no session token.");
        Assert.Equal(_recorder.Last(container.Id), token);
        SessionTokens.Parse(token);
    }

    [Fact]
    public async Task TypedPointOperations_HandBackTheInnerToken()
    {
        (_, Container container) = await CreateContainerAsync();
        SecretDocument document = SecretDocument.Create();

        AssertPassedThrough(container, (await container.CreateItemAsync(document, document.PartitionKey, EncryptSecrets, Ct)).Headers.Session);
        AssertPassedThrough(container, (await container.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: Ct)).Headers.Session);
        AssertPassedThrough(container, (await container.ReplaceItemAsync(document with { Name = "B" }, document.Id, document.PartitionKey, EncryptSecrets, Ct)).Headers.Session);
        AssertPassedThrough(container, (await container.UpsertItemAsync(document with { Name = "C" }, document.PartitionKey, EncryptSecrets, Ct)).Headers.Session);
        AssertPassedThrough(container, (await container.PatchItemAsync<SecretDocument>(document.Id, document.PartitionKey, [PatchOperation.Set("/ssn", "patched")], cancellationToken: Ct)).Headers.Session);
        AssertPassedThrough(container, (await container.DeleteItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: Ct)).Headers.Session);
        CosmosException missing = await Assert.ThrowsAsync<CosmosException>(() => container.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: Ct));
        AssertPassedThrough(container, missing.Headers.Session);
    }

    [Fact]
    public async Task StreamPointOperations_HandBackTheInnerToken()
    {
        (_, Container container) = await CreateContainerAsync();
        string id = Guid.NewGuid().ToString("N");
        PartitionKey pk = new("p0");
        string json = $$"""{"id":"{{id}}","pk":"p0","ssn":"999-00-1111"}""";
        EncryptionItemRequestOptions options = EncryptionFixture.Encrypt(EncryptionFixture.Dek2, "/ssn");

        foreach (Func<Task<ResponseMessage>> operation in new Func<Task<ResponseMessage>>[]
        {
            () => container.CreateItemStreamAsync(ToStream(json), pk, options, Ct),
            () => container.ReadItemStreamAsync(id, pk, cancellationToken: Ct),
            () => container.ReplaceItemStreamAsync(ToStream(json), id, pk, options, Ct),
            () => container.UpsertItemStreamAsync(ToStream(json), pk, options, Ct),
            () => container.PatchItemStreamAsync(id, pk, [PatchOperation.Set("/ssn", "patched")], cancellationToken: Ct),
            () => container.DeleteItemStreamAsync(id, pk, cancellationToken: Ct),
            () => container.ReadItemStreamAsync(id, pk, cancellationToken: Ct),
        })
        {
            using ResponseMessage response = await operation();
            AssertPassedThrough(container, response.Headers.Session);
        }
    }

    [Fact]
    public async Task TransactionalBatch_HandsBackTheInnerToken()
    {
        (_, Container container) = await CreateContainerAsync();
        SecretDocument first = SecretDocument.Create();
        SecretDocument second = SecretDocument.Create();
        var options = new EncryptionTransactionalBatchItemRequestOptions { EncryptionOptions = EncryptionFixture.Options(EncryptionFixture.Dek1, SecretDocument.SecretPaths) };

        using TransactionalBatchResponse response = await container.CreateTransactionalBatch(new PartitionKey("p0"))
            .CreateItem(first, options)
            .UpsertItem(second, options)
            .ReadItem(first.Id)
            .ExecuteAsync(Ct);

        Assert.True(response.IsSuccessStatusCode, $"batch failed: {response.StatusCode} {response.ErrorMessage}");
        AssertPassedThrough(container, response.Headers.Session);
    }

    [Fact]
    public async Task Bulk_EachItemHandsBackATokenItsBatchReceived()
    {
        (_, Container container) = await CreateContainerAsync(bulk: true);
        SecretDocument[] documents = [.. Enumerable.Range(0, 6).Select(i => SecretDocument.Create($"p{i % 2}"))];

        ItemResponse<SecretDocument>[] responses = await Task.WhenAll(documents.Select(d => container.CreateItemAsync(d, d.PartitionKey, EncryptSecrets, Ct)));

        Assert.All(responses, response =>
        {
            SessionTokens.Parse(response.Headers.Session);
            Assert.True(_recorder.Received(container.Id, response.Headers.Session), $"'{response.Headers.Session}' is no token the inner container received.");
        });
    }

    [Fact]
    public async Task QueryPagesAndReadMany_HandBackTheInnerToken()
    {
        (Container raw, Container container) = await CreateContainerAsync();
        SecretDocument[] documents = [.. Enumerable.Range(0, 5).Select(i => SecretDocument.Create($"p{i % 2}"))];
        foreach (SecretDocument document in documents)
        {
            await container.CreateItemAsync(document, document.PartitionKey, EncryptSecrets, Ct);
        }

        await AssertPagesAsync(container, container.GetItemQueryIterator<SecretDocument>("SELECT * FROM c", requestOptions: new QueryRequestOptions { MaxItemCount = 2 }));
        await AssertStreamPagesAsync(container, container.GetItemQueryStreamIterator("SELECT * FROM c", requestOptions: new QueryRequestOptions { MaxItemCount = 2 }));
        IReadOnlyList<(string, PartitionKey)> keys = [.. documents.Select(d => (d.Id, d.PartitionKey))];

        // Read-many merges the answers of its queries and, in the SDK, keeps no session token: the encryption
        // container hands back what the inner container's read-many does.
        FeedResponse<SecretDocument> many = await container.ReadManyItemsAsync<SecretDocument>(keys, cancellationToken: Ct);
        using ResponseMessage manyStream = await container.ReadManyItemsStreamAsync(keys, cancellationToken: Ct);
        FeedResponse<Newtonsoft.Json.Linq.JObject> innerMany = await raw.ReadManyItemsAsync<Newtonsoft.Json.Linq.JObject>(keys, cancellationToken: Ct);
        using ResponseMessage innerManyStream = await raw.ReadManyItemsStreamAsync(keys, cancellationToken: Ct);
        Assert.Equal(documents.Length, many.Count);
        Assert.True(manyStream.IsSuccessStatusCode);
        Assert.Equal(innerMany.Headers.Session, many.Headers.Session);
        Assert.Equal(innerManyStream.Headers.Session, manyStream.Headers.Session);
    }

    [Fact]
    public async Task ChangeFeedPages_HandBackWhatTheInnerIteratorHandsBack()
    {
        // The SDK's change feed iterator rebuilds page headers (without the session token the service sent),
        // so the encryption container must hand back exactly what the inner container's iterator does.
        (Container raw, Container container) = await CreateContainerAsync();
        foreach (SecretDocument document in Enumerable.Range(0, 5).Select(i => SecretDocument.Create($"p{i % 2}")))
        {
            await container.CreateItemAsync(document, document.PartitionKey, EncryptSecrets, Ct);
        }

        var options = new ChangeFeedRequestOptions { PageSizeHint = 2 };
        using FeedIterator<SecretDocument> typed = container.GetChangeFeedIterator<SecretDocument>(ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion, options);
        using FeedIterator stream = container.GetChangeFeedStreamIterator(ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion, options);
        using FeedIterator inner = raw.GetChangeFeedStreamIterator(ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion, options);
        int pages = 0;
        while (pages++ < 100)
        {
            FeedResponse<SecretDocument> typedPage = await typed.ReadNextAsync(Ct);
            using ResponseMessage streamPage = await stream.ReadNextAsync(Ct);
            using ResponseMessage innerPage = await inner.ReadNextAsync(Ct);
            Assert.Equal(innerPage.StatusCode, typedPage.StatusCode);
            Assert.Equal(innerPage.Headers.Session, typedPage.Headers.Session);
            Assert.Equal(innerPage.Headers.Session, streamPage.Headers.Session);
            if (innerPage.StatusCode == HttpStatusCode.NotModified)
            {
                break;
            }
        }

        Assert.True(pages > 3, "Expected several pages of changes.");
        SessionTokens.Parse(_recorder.Last(container.Id));
    }

    [Fact]
    public async Task ReadYourWrites_AnotherClientWithTheWritersToken_ReadsTheWrittenValue()
    {
        (Container raw, Container container) = await CreateContainerAsync();
        SecretDocument document = SecretDocument.Create();
        await container.CreateItemAsync(document, document.PartitionKey, EncryptSecrets, Ct);
        ItemResponse<SecretDocument> written = await container.ReplaceItemAsync(document with { Ssn = "written" }, document.Id, document.PartitionKey, EncryptSecrets, Ct);
        using CosmosClient reader = fixture.Endpoint.CreateClient(options => options.ConsistencyLevel = ConsistencyLevel.Session);
        Container readerContainer = reader.GetContainer(fixture.Database.Id, raw.Id).WithEncryptor(fixture.Encryptor);

        ItemResponse<SecretDocument> read = await readerContainer.ReadItemAsync<SecretDocument>(
            document.Id, document.PartitionKey, new ItemRequestOptions { SessionToken = written.Headers.Session }, Ct);
        List<SecretDocument> queried = await readerContainer.GetItemQueryIterator<SecretDocument>(
            "SELECT * FROM c", requestOptions: new QueryRequestOptions { SessionToken = written.Headers.Session, PartitionKey = document.PartitionKey }).ReadAllAsync(Ct);
        string ahead = SessionTokens.WithLsn(written.Headers.Session, SessionTokens.Lsn(written.Headers.Session) + 1);
        CosmosException notYet = await Assert.ThrowsAsync<CosmosException>(() => readerContainer.ReadItemAsync<SecretDocument>(
            document.Id, document.PartitionKey, new ItemRequestOptions { SessionToken = ahead }, Ct));

        Assert.Equal("written", read.Resource.Ssn);
        Assert.Equal("written", Assert.Single(queried).Ssn);
        Assert.Equal(HttpStatusCode.NotFound, notYet.StatusCode);
        Assert.Equal(1002, notYet.SubStatusCode);
    }

    private async Task AssertPagesAsync<T>(Container container, FeedIterator<T> iterator)
    {
        using (iterator)
        {
            int pages = 0;
            while (iterator.HasMoreResults && pages++ < 100)
            {
                FeedResponse<T> page = await iterator.ReadNextAsync(Ct);
                AssertPassedThrough(container, page.Headers.Session);
                if (page.StatusCode == HttpStatusCode.NotModified)
                {
                    break;
                }
            }

            Assert.True(pages > 1, "Expected several pages.");
        }
    }

    private async Task AssertStreamPagesAsync(Container container, FeedIterator iterator)
    {
        using (iterator)
        {
            int pages = 0;
            while (iterator.HasMoreResults && pages++ < 100)
            {
                using ResponseMessage page = await iterator.ReadNextAsync(Ct);
                AssertPassedThrough(container, page.Headers.Session);
                if (page.StatusCode == HttpStatusCode.NotModified)
                {
                    break;
                }
            }

            Assert.True(pages > 1, "Expected several pages.");
        }
    }

    private static MemoryStream ToStream(string json) => new(Encoding.UTF8.GetBytes(json));

    public void Dispose() => _client?.Dispose();
}
