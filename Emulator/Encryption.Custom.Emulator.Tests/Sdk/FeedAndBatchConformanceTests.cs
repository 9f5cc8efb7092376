namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// Feeds and batches answered as Cosmos DB answers them: a read of the documents scoped to a partition key
/// returns that partition only; a change feed mode the endpoint cannot serve is refused (400), never served
/// as another mode; a batch is charged even when it fails and names the partition key range that ran it.
/// </summary>
public sealed class FeedAndBatchConformanceTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task ReadFeed_ScopedToAPartitionKey_ReturnsThatPartitionOnly()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        IReadOnlyList<TestDocument> documents = await TestDocument.SeedAsync(container, 6, 3, Ct);

        List<TestDocument> read = await container
            .GetItemQueryIterator<TestDocument>(queryText: null, requestOptions: new QueryRequestOptions { PartitionKey = new PartitionKey("p1") })
            .ReadAllAsync(Ct);

        Assert.Equal(documents.Where(d => d.Pk == "p1").OrderBy(d => d.Id), read.OrderBy(d => d.Id));
    }

    [Fact]
    public async Task ChangeFeed_AllVersionsAndDeletes_IsRefusedOrServedNeverAnsweredAsLatestVersion()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        TestDocument document = TestDocument.Create();
        await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
        using FeedIterator<dynamic> iterator = container.GetChangeFeedIterator<dynamic>(ChangeFeedStartFrom.Now(), ChangeFeedMode.AllVersionsAndDeletes);

        try
        {
            await container.DeleteItemAsync<TestDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
            FeedResponse<dynamic> page = await iterator.ReadNextAsync(Ct);
            // An account with the mode enabled serves it: from "now", only changes made after the start.
            Assert.False(fixture.Endpoint.IsBundled, "The bundled endpoint does not implement all versions and deletes.");
            Assert.True(page.StatusCode is HttpStatusCode.OK or HttpStatusCode.NotModified);
        }
        catch (CosmosException ex)
        {
            // Accounts without the mode refuse it with 400, as the bundled endpoint does.
            Assert.Equal(HttpStatusCode.BadRequest, ex.StatusCode);
            if (fixture.Endpoint.IsBundled)
            {
                Assert.Contains("all versions and deletes", ex.Message, StringComparison.Ordinal);
            }
        }
    }

    [Fact]
    public async Task TransactionalBatch_ThatFails_IsStillCharged()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument existing = TestDocument.Create();
        await container.CreateItemAsync(existing, existing.PartitionKey, cancellationToken: Ct);

        using TransactionalBatchResponse response = await container.CreateTransactionalBatch(existing.PartitionKey)
            .CreateItem(existing)
            .ExecuteAsync(Ct);

        Assert.Equal(HttpStatusCode.Conflict, response.StatusCode);
        Assert.True(response.RequestCharge > 0, $"A failed batch was charged {response.RequestCharge} RU.");
    }

    [Fact]
    public async Task TransactionalBatch_NamesThePartitionKeyRangeThatRanIt()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument document = TestDocument.Create();

        using TransactionalBatchResponse response = await container.CreateTransactionalBatch(document.PartitionKey)
            .CreateItem(document)
            .ExecuteAsync(Ct);

        Assert.True(response.IsSuccessStatusCode);
        Assert.False(string.IsNullOrEmpty(response.Headers["x-ms-documentdb-partitionkeyrangeid"]));
        Assert.Equal(SessionTokens.Parse(response.Headers.Session).RangeId, response.Headers["x-ms-documentdb-partitionkeyrangeid"]);
    }

    [Fact]
    public async Task TransactionalBatch_WhoseAnswerExceedsTheResponseLimit_Is413AndUndone()
    {
        // Three reads of 1.5 MB documents make an answer over the 4 MB a response may carry.
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        string large = new('x', 1_500_000);
        string[] ids = [.. Enumerable.Range(0, 3).Select(i => $"large-{i}")];
        foreach (string id in ids)
        {
            await container.CreateItemAsync(new { id, pk = "p0", text = large }, new PartitionKey("p0"), new ItemRequestOptions { EnableContentResponseOnWrite = false }, Ct);
        }

        TestDocument created = TestDocument.Create();
        TransactionalBatch batch = container.CreateTransactionalBatch(new PartitionKey("p0")).CreateItem(created);
        foreach (string id in ids)
        {
            batch.ReadItem(id);
        }

        using TransactionalBatchResponse response = await batch.ExecuteAsync(Ct);

        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, response.StatusCode);
        using ResponseMessage notCreated = await container.ReadItemStreamAsync(created.Id, created.PartitionKey, cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, notCreated.StatusCode);
    }

    [Fact]
    public async Task NotFoundAndPreconditionFailed_SayWhatWentWrong()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument document = TestDocument.Create();
        await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);

        CosmosException missing = await Assert.ThrowsAsync<CosmosException>(() => container.DeleteItemAsync<TestDocument>("missing-" + document.Id, document.PartitionKey, cancellationToken: Ct));
        CosmosException stale = await Assert.ThrowsAsync<CosmosException>(() => container.DeleteItemAsync<TestDocument>(
            document.Id, document.PartitionKey, new ItemRequestOptions { IfMatchEtag = "\"stale\"" }, Ct));

        Assert.Equal(HttpStatusCode.NotFound, missing.StatusCode);
        Assert.Equal(HttpStatusCode.PreconditionFailed, stale.StatusCode);
        foreach (CosmosException ex in new[] { missing, stale })
        {
            // The SDK renders the error body as "code : ...", "message : ..." lines (or keeps the JSON).
            Assert.Matches(@"""?message""?[ \t]*:[ \t]*""?[^""\s]", ex.ResponseBody);
        }
    }

    [Fact]
    public async Task Query_WithAZeroContinuationLimit_Is400_WithMetricsAskedForCarriesThem()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        await container.CreateItemAsync(TestDocument.Create(), new PartitionKey("p0"), cancellationToken: Ct);

        CosmosException ex = await Assert.ThrowsAsync<CosmosException>(() => container.GetItemQueryIterator<TestDocument>(
            "SELECT * FROM c", requestOptions: new QueryRequestOptions { PartitionKey = new PartitionKey("p0"), ResponseContinuationTokenLimitInKb = 0 }).ReadAllAsync(Ct));
        FeedResponse<TestDocument> page = await container.GetItemQueryIterator<TestDocument>(
            "SELECT * FROM c", requestOptions: new QueryRequestOptions { PartitionKey = new PartitionKey("p0"), PopulateIndexMetrics = false, MaxItemCount = 1 }.WithQueryMetrics()).ReadNextAsync(Ct);

        Assert.Equal(HttpStatusCode.BadRequest, ex.StatusCode);
        Assert.False(string.IsNullOrEmpty(page.Headers["x-ms-documentdb-query-metrics"]));
    }
}

internal static class QueryMetricsRequest
{
    /// <summary>Asks for query metrics (the header the SDK sends for them).</summary>
    public static QueryRequestOptions WithQueryMetrics(this QueryRequestOptions options)
    {
        options.AddRequestHeaders = headers => headers["x-ms-documentdb-populatequerymetrics"] = bool.TrueString;
        return options;
    }
}
