namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// Session tokens as Cosmos DB hands them out: every document operation, query page and change feed page
/// answers with <c>x-ms-session-token</c> (<c>&lt;range&gt;:&lt;version&gt;#&lt;LSN&gt;</c>); the range's LSN
/// grows by one with every write (creates, replaces, upserts, patches and deletes alike) and reads report it
/// unchanged; a read that carries a token ahead of the range is refused with 404, substatus 1002 (read
/// session not available). A new container here has several partition key ranges; each token names the range
/// that served the request.
/// </summary>
public sealed class SessionTokenTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private const int ReadSessionNotAvailable = 1002;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task PointOperations_EveryWriteAdvancesTheLsnByOne_ReadsReportItUnchanged()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        TestDocument document = TestDocument.Create();

        ItemResponse<TestDocument> created = await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
        (string rangeId, long first) = SessionTokens.Parse(created.Headers.Session);
        ItemResponse<TestDocument> read = await container.ReadItemAsync<TestDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        ItemResponse<TestDocument> replaced = await container.ReplaceItemAsync(document with { Score = 1 }, document.Id, document.PartitionKey, cancellationToken: Ct);
        ItemResponse<TestDocument> upserted = await container.UpsertItemAsync(document with { Score = 2 }, document.PartitionKey, cancellationToken: Ct);
        ItemResponse<TestDocument> patched = await container.PatchItemAsync<TestDocument>(document.Id, document.PartitionKey, [PatchOperation.Set("/score", 3)], cancellationToken: Ct);
        using ResponseMessage readStream = await container.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct);
        ItemResponse<TestDocument> deleted = await container.DeleteItemAsync<TestDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        using ResponseMessage missing = await container.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct);

        Assert.All(
            new[] { read.Headers.Session, replaced.Headers.Session, upserted.Headers.Session, patched.Headers.Session, readStream.Headers.Session, deleted.Headers.Session, missing.Headers.Session },
            token => Assert.Equal(rangeId, SessionTokens.Parse(token).RangeId));
        Assert.Equal(first, SessionTokens.Lsn(read.Headers.Session));
        Assert.Equal(first + 1, SessionTokens.Lsn(replaced.Headers.Session));
        Assert.Equal(first + 2, SessionTokens.Lsn(upserted.Headers.Session));
        Assert.Equal(first + 3, SessionTokens.Lsn(patched.Headers.Session));
        Assert.Equal(first + 3, SessionTokens.Lsn(readStream.Headers.Session));
        Assert.Equal(first + 4, SessionTokens.Lsn(deleted.Headers.Session));
        Assert.Equal(HttpStatusCode.NotFound, missing.StatusCode);
        Assert.Equal(first + 4, SessionTokens.Lsn(missing.Headers.Session));
    }

    [Fact]
    public async Task FailedWrites_DoNotAdvanceTheLsn_AndStillCarryTheToken()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        TestDocument document = TestDocument.Create();
        ItemResponse<TestDocument> created = await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);

        using ResponseMessage conflict = await container.CreateItemStreamAsync(ToStream(document), document.PartitionKey, cancellationToken: Ct);
        using ResponseMessage stale = await container.ReplaceItemStreamAsync(ToStream(document), document.Id, document.PartitionKey, new ItemRequestOptions { IfMatchEtag = "\"stale\"" }, Ct);
        using ResponseMessage deleteMissing = await container.DeleteItemStreamAsync("missing-" + document.Id, document.PartitionKey, cancellationToken: Ct);
        using ResponseMessage read = await container.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.Conflict, conflict.StatusCode);
        Assert.Equal(HttpStatusCode.PreconditionFailed, stale.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, deleteMissing.StatusCode);
        long lsn = SessionTokens.Lsn(created.Headers.Session);
        Assert.All(new[] { conflict, stale, deleteMissing, read }, response => Assert.Equal(lsn, SessionTokens.Lsn(response.Headers.Session)));
    }

    [Fact]
    public async Task QueryAndReadFeedPages_EachCarryTheTokenOfTheRangeThatServedIt()
    {
        // Cosmos DB answers each page from one partition key range, with that range's session token: a query
        // across the container reads every range that holds documents, and each page names its range and that
        // range's LSN (the LSN of the last write there), never another range's.
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        var lastWrite = new Dictionary<string, long>(StringComparer.Ordinal);
        for (int i = 0; i < 12; i++)
        {
            TestDocument document = TestDocument.Create($"p{i % 6}");
            ItemResponse<TestDocument> created = await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
            (string range, long lsn) = SessionTokens.Parse(created.Headers.Session);
            lastWrite[range] = Math.Max(lsn, lastWrite.GetValueOrDefault(range));
        }

        Assert.True(lastWrite.Count > 1, $"The writes reached one partition key range only ({string.Join(", ", lastWrite.Keys)}): this test needs several.");
        using ResponseMessage p0Read = await container.ReadItemStreamAsync("missing", new PartitionKey("p0"), cancellationToken: Ct);
        string p0Range = SessionTokens.Parse(p0Read.Headers.Session).RangeId;

        IReadOnlyList<FeedResponse<TestDocument>> crossPartition = await container
            .GetItemQueryIterator<TestDocument>("SELECT * FROM c", requestOptions: new QueryRequestOptions { MaxItemCount = 2 })
            .ReadAllPagesAsync(Ct);
        IReadOnlyList<FeedResponse<TestDocument>> scoped = await container
            .GetItemQueryIterator<TestDocument>("SELECT * FROM c", requestOptions: new QueryRequestOptions { PartitionKey = new PartitionKey("p0") })
            .ReadAllPagesAsync(Ct);
        IReadOnlyList<FeedResponse<TestDocument>> readFeed = await container.GetItemQueryIterator<TestDocument>().ReadAllPagesAsync(Ct);

        foreach ((string kind, IReadOnlyList<FeedResponse<TestDocument>> pages) in new[] { ("query", crossPartition), ("read feed", readFeed) })
        {
            var served = new HashSet<string>(StringComparer.Ordinal);
            foreach (FeedResponse<TestDocument> page in pages.Where(p => p.Count > 0))
            {
                (string range, long lsn) = SessionTokens.Parse(page.Headers.Session);
                Assert.True(lastWrite.TryGetValue(range, out long expected), $"{kind}: a page with documents names range {range}, where nothing was written.");
                Assert.True(expected == lsn, $"{kind}: '{page.Headers.Session}', expected LSN {expected} for range {range}.");
                served.Add(range);
            }

            Assert.Equal(lastWrite.Keys.Order(), served.Order());
            Assert.Equal(12, pages.Sum(p => p.Count));
        }

        Assert.All(scoped, page => Assert.Equal((p0Range, lastWrite[p0Range]), SessionTokens.Parse(page.Headers.Session)));
        Assert.Equal(2, scoped.Sum(p => p.Count));
    }

    [Fact]
    public async Task ChangeFeedPages_CarryTheRangeLsnOnTheWire()
    {
        // The SDK's change feed iterator rebuilds each page's headers and leaves the session token out, so
        // the answers are observed below it, where a request handler sees them as the service sent them.
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        await TestDocument.SeedAsync(container, 3, 1, Ct);
        ItemResponse<TestDocument> last = await container.CreateItemAsync(TestDocument.Create(), new PartitionKey("p0"), cancellationToken: Ct);
        var recorder = new SessionTokenRecorder();
        using CosmosClient client = fixture.Endpoint.CreateClient(options => options.CustomHandlers.Add(recorder));

        (IReadOnlyList<FeedResponse<TestDocument>> pages, _) = await client.GetContainer(fixture.Database.Id, container.Id)
            .GetChangeFeedIterator<TestDocument>(ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion, new ChangeFeedRequestOptions { PageSizeHint = 2 })
            .ReadChangesAsync(Ct);

        Assert.Equal(2, pages.Count);
        Assert.Equal(SessionTokens.Lsn(last.Headers.Session), SessionTokens.Lsn(recorder.Last(container.Id)));
    }

    [Fact]
    public async Task ReadWithTokenAheadOfTheRange_Is404ReadSessionNotAvailable_AtOrBehindIsServed()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        TestDocument document = TestDocument.Create();
        ItemResponse<TestDocument> created = await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
        string current = created.Headers.Session;
        string ahead = SessionTokens.WithLsn(current, SessionTokens.Lsn(current) + 1);

        CosmosException pointRead = await Assert.ThrowsAsync<CosmosException>(() => container.ReadItemAsync<TestDocument>(
            document.Id, document.PartitionKey, new ItemRequestOptions { SessionToken = ahead }, Ct));
        CosmosException query = await Assert.ThrowsAsync<CosmosException>(() => container.GetItemQueryIterator<TestDocument>(
            "SELECT * FROM c", requestOptions: new QueryRequestOptions { SessionToken = ahead, PartitionKey = document.PartitionKey }).ReadAllAsync(Ct));
        ItemResponse<TestDocument> atCurrent = await container.ReadItemAsync<TestDocument>(
            document.Id, document.PartitionKey, new ItemRequestOptions { SessionToken = current }, Ct);
        ItemResponse<TestDocument> behind = await container.ReadItemAsync<TestDocument>(
            document.Id, document.PartitionKey, new ItemRequestOptions { SessionToken = SessionTokens.WithLsn(current, 0) }, Ct);

        foreach (CosmosException refused in new[] { pointRead, query })
        {
            Assert.Equal(HttpStatusCode.NotFound, refused.StatusCode);
            Assert.Equal(ReadSessionNotAvailable, refused.SubStatusCode);
        }

        Assert.Equal(HttpStatusCode.OK, atCurrent.StatusCode);
        Assert.Equal(HttpStatusCode.OK, behind.StatusCode);
    }

    [Fact]
    public async Task WriteWithTokenAheadOfTheRange_IsServed()
    {
        // Writes go to the range's primary, which is never behind: Cosmos DB checks session tokens on reads only.
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        TestDocument document = TestDocument.Create();
        ItemResponse<TestDocument> created = await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
        string ahead = SessionTokens.WithLsn(created.Headers.Session, SessionTokens.Lsn(created.Headers.Session) + 100);

        ItemResponse<TestDocument> replaced = await container.ReplaceItemAsync(
            document with { Score = 9 }, document.Id, document.PartitionKey, new ItemRequestOptions { SessionToken = ahead }, Ct);

        Assert.Equal(HttpStatusCode.OK, replaced.StatusCode);
    }

    [Fact]
    public async Task ContainerRecreatedUnderTheSameName_ReadsThroughTheClientThatKnewTheOldOne()
    {
        // The old container's tokens (high LSNs) are what this client would send to the new one: Cosmos DB
        // answers 404/1002 and the SDK drops them, refreshes the container's resource id and reads again.
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        await TestDocument.SeedAsync(container, 5, 1, Ct);
        using CosmosClient other = fixture.Endpoint.CreateClient();
        Container recreatedByOther = other.GetContainer(fixture.Database.Id, container.Id);
        await recreatedByOther.DeleteContainerAsync(cancellationToken: Ct);
        await other.GetDatabase(fixture.Database.Id).CreateContainerAsync(new ContainerProperties(container.Id, "/pk"), cancellationToken: Ct);
        TestDocument document = TestDocument.Create();
        await recreatedByOther.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);

        ItemResponse<TestDocument> read = await container.ReadItemAsync<TestDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);

        Assert.Equal(document, read.Resource);
    }

    private static MemoryStream ToStream(TestDocument document) =>
        new(System.Text.Encoding.UTF8.GetBytes(Newtonsoft.Json.JsonConvert.SerializeObject(document)));
}
