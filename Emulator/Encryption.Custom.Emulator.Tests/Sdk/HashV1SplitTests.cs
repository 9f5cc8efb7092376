namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// Containers whose partition key is hashed with version 1 (the SDK's default without
/// <see cref="PartitionKeyDefinitionVersion.V2"/>) split as Cosmos DB splits them: the SDK computes v1 effective
/// partition keys itself and routes by them, so after a split (on request on the bundled server, or a throughput
/// raise) every key must be in the child the SDK looks in, and feeds must carry on from the parent. Elsewhere
/// nothing splits on request and the tests check only that nothing is lost or repeated.
/// </summary>
public sealed class HashV1SplitTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private async Task<Container> CreateHashV1Async(int throughput) => (await fixture.Database.CreateContainerAsync(
        new ContainerProperties("c-" + Guid.NewGuid().ToString("N"), CosmosDatabaseFixture.DefaultPartitionKeyPath) { PartitionKeyDefinitionVersion = PartitionKeyDefinitionVersion.V1 },
        ThroughputProperties.CreateManualThroughput(throughput), cancellationToken: Ct)).Container;

    private static async Task AssertEveryDocumentIsWhereTheSdkRoutesItAsync(Container container, IReadOnlyList<TestDocument> documents)
    {
        var found = new List<string>();
        foreach (FeedRange range in await container.GetFeedRangesAsync(Ct))
        {
            found.AddRange((await container.GetItemQueryIterator<TestDocument>(range, new QueryDefinition("SELECT * FROM c")).ReadAllAsync(Ct)).Select(d => d.Id));
        }

        // ReadMany asks each range, by its id, for the keys the SDK placed there by their v1 EPKs.
        FeedResponse<TestDocument> many = await container.ReadManyItemsAsync<TestDocument>([.. documents.Select(d => (d.Id, d.PartitionKey))], cancellationToken: Ct);
        List<TestDocument> scoped = await container.GetItemQueryIterator<TestDocument>(
            "SELECT * FROM c", requestOptions: new QueryRequestOptions { PartitionKey = documents[0].PartitionKey }).ReadAllAsync(Ct);

        Assert.Equal(documents.Select(d => d.Id).Order(), found.Order());
        Assert.Equal(documents.Select(d => d.Id).Order(), many.Select(d => d.Id).Order());
        Assert.Equal(documents.Where(d => d.Pk == documents[0].Pk).Select(d => d.Id).Order(), scoped.Select(d => d.Id).Order());
        foreach (TestDocument document in documents)
        {
            ItemResponse<TestDocument> read = await container.ReadItemAsync<TestDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
            Assert.Equal(document.Id, read.Resource.Id);
        }
    }

    [Fact]
    public async Task SplitOnRequest_KeepsEveryKeyWhereTheSdkRoutesIt_AndTheChangeFeedContinuesFromTheParent()
    {
        Container container = await CreateHashV1Async(400);
        IReadOnlyList<TestDocument> documents = await TestDocument.SeedAsync(container, 36, 12, Ct);
        FeedIterator<TestDocument> before = container.GetChangeFeedIterator<TestDocument>(ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion);
        (IReadOnlyList<FeedResponse<TestDocument>> firstPages, string continuation) = await before.ReadChangesAsync(Ct);

        bool split = await PartitionSplits.SplitAsync(fixture.Endpoint, container, cancellationToken: Ct);
        bool splitAgain = await PartitionSplits.SplitAsync(fixture.Endpoint, container, cancellationToken: Ct);
        IReadOnlyList<FeedRange> ranges = await container.GetFeedRangesAsync(Ct);
        TestDocument late = TestDocument.Create("late", "Late", 1);
        await container.CreateItemAsync(late, late.PartitionKey, cancellationToken: Ct);
        FeedIterator<TestDocument> after = container.GetChangeFeedIterator<TestDocument>(ChangeFeedStartFrom.ContinuationToken(continuation), ChangeFeedMode.LatestVersion);
        (IReadOnlyList<FeedResponse<TestDocument>> laterPages, _) = await after.ReadChangesAsync(Ct);

        if (fixture.Endpoint.IsBundled)
        {
            Assert.True(split && splitAgain);
            Assert.Equal(3, ranges.Count);
        }

        Assert.Equal(documents.Select(d => d.Id).Order(), firstPages.SelectMany(p => p).Select(d => d.Id).Order());
        Assert.Equal([late.Id], laterPages.SelectMany(p => p).Select(d => d.Id));
        await AssertEveryDocumentIsWhereTheSdkRoutesItAsync(container, [.. documents, late]);
    }

    [Fact]
    public async Task RaisingThroughput_SplitsAHashV1Container_AndEveryDocumentStaysReadable()
    {
        Container container = await CreateHashV1Async(400);
        IReadOnlyList<TestDocument> documents = await TestDocument.SeedAsync(container, 30, 10, Ct);

        await container.ReplaceThroughputAsync(ThroughputProperties.CreateManualThroughput(25_000), cancellationToken: Ct);
        IReadOnlyList<FeedRange> ranges = await container.GetFeedRangesAsync(Ct);

        if (fixture.Endpoint.IsBundled)
        {
            Assert.Equal(3, ranges.Count);
        }

        await AssertEveryDocumentIsWhereTheSdkRoutesItAsync(container, documents);
    }
}
