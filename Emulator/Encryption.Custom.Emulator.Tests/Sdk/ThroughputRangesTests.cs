namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// Cosmos DB spreads a container over physical partitions by its throughput (about 10,000 RU/s each), whatever its
/// partition key version, and raising the throughput above what they carry splits them. The bundled server does
/// that (hash-v2 containers get at least its configured number of ranges; hash-v1 splits: HashV1SplitTests); an
/// account gives at least as many, and splits in the background (hours), so there the test checks only that
/// nothing is lost.
/// </summary>
public sealed class ThroughputRangesTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static string NewId() => "c-" + Guid.NewGuid().ToString("N");

    private static ContainerProperties HashV2() => new(NewId(), CosmosDatabaseFixture.DefaultPartitionKeyPath) { PartitionKeyDefinitionVersion = PartitionKeyDefinitionVersion.V2 };

    [Fact]
    public async Task ContainerCreatedWith40000RUs_HasFourRanges()
    {
        Container container = (await fixture.Database.CreateContainerAsync(HashV2(), ThroughputProperties.CreateManualThroughput(40_000), cancellationToken: Ct)).Container;

        int ranges = (await container.GetFeedRangesAsync(Ct)).Count;

        if (fixture.Endpoint.IsBundled)
        {
            Assert.Equal(4, ranges);
        }
        else
        {
            Assert.True(ranges >= 4, $"{ranges} physical partitions for 40,000 RU/s");
        }
    }

    [Fact]
    public async Task RaisingThroughput_SplitsRanges_AndEveryDocumentStaysReadable()
    {
        Container container = (await fixture.Database.CreateContainerAsync(HashV2(), ThroughputProperties.CreateManualThroughput(400), cancellationToken: Ct)).Container;
        IReadOnlyList<TestDocument> documents = await TestDocument.SeedAsync(container, 30, 10, Ct);
        int before = (await container.GetFeedRangesAsync(Ct)).Count;

        await container.ReplaceThroughputAsync(ThroughputProperties.CreateManualThroughput(50_000), cancellationToken: Ct);
        IReadOnlyList<FeedRange> after = await container.GetFeedRangesAsync(Ct);
        List<TestDocument> queried = await container.GetItemQueryIterator<TestDocument>("SELECT * FROM c").ReadAllAsync(Ct);
        var changed = new List<TestDocument>();
        foreach (FeedRange range in after)
        {
            using FeedIterator<TestDocument> feed = container.GetChangeFeedIterator<TestDocument>(ChangeFeedStartFrom.Beginning(range), ChangeFeedMode.LatestVersion);
            changed.AddRange((await feed.ReadChangesAsync(Ct)).Pages.SelectMany(page => page));
        }

        if (fixture.Endpoint.IsBundled)
        {
            Assert.Equal(5, after.Count);
            Assert.True(after.Count > before);
        }

        Assert.Equal(documents.OrderBy(d => d.Id), queried.OrderBy(d => d.Id));
        Assert.Equal(documents.OrderBy(d => d.Id), changed.OrderBy(d => d.Id));
    }

    [Fact]
    public async Task HashV1ContainerWith40000RUs_HasFourRanges_AndTheSdkRoutesEveryKeyToTheRangeHoldingIt()
    {
        Container container = (await fixture.Database.CreateContainerAsync(
            new ContainerProperties(NewId(), CosmosDatabaseFixture.DefaultPartitionKeyPath) { PartitionKeyDefinitionVersion = PartitionKeyDefinitionVersion.V1 },
            ThroughputProperties.CreateManualThroughput(40_000), cancellationToken: Ct)).Container;
        IReadOnlyList<TestDocument> documents = await TestDocument.SeedAsync(container, 36, 36, Ct);

        IReadOnlyList<FeedRange> ranges = await container.GetFeedRangesAsync(Ct);
        var found = new List<string>();
        foreach (FeedRange range in ranges)
        {
            found.AddRange((await container.GetItemQueryIterator<TestDocument>(range, new QueryDefinition("SELECT * FROM c")).ReadAllAsync(Ct)).Select(d => d.Id));
        }

        // ReadMany groups the keys by the range the SDK computes from each key's hash-v1 EPK and asks each range
        // (by its id) for its keys only: a document the endpoint placed in another range would be missing.
        FeedResponse<TestDocument> readMany = await container.ReadManyItemsAsync<TestDocument>(
            documents.Select(d => (d.Id, d.PartitionKey)).ToList(), cancellationToken: Ct);

        Assert.True(fixture.Endpoint.IsBundled ? ranges.Count == 4 : ranges.Count >= 4, $"{ranges.Count} ranges for 40,000 RU/s");
        Assert.Equal(documents.Select(d => d.Id).Order(), found.Order());
        Assert.Equal(documents.Select(d => d.Id).Order(), readMany.Select(d => d.Id).Order());
    }
}
