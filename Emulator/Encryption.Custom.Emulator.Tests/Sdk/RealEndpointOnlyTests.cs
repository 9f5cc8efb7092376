namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// SDK features the bundled server does not implement. They run against Microsoft's emulator or an account
/// and are skipped, with the reason shown, against the bundled server.
/// </summary>
[Trait(TestCategories.Name, TestCategories.RealEndpointOnly)]
public sealed class RealEndpointOnlyTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task TransactionalBatch_AllSucceed_CommitsEveryOperation()
    {
        fixture.Endpoint.SkipIfBundled("transactional batch (binary HybridRow bodies)");
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        TestDocument first = TestDocument.Create("p0", score: 1);
        TestDocument second = TestDocument.Create("p0", score: 2);

        using TransactionalBatchResponse response = await container.CreateTransactionalBatch(new PartitionKey("p0"))
            .CreateItem(first)
            .CreateItem(second)
            .ReplaceItem(first.Id, first with { Score = 10 })
            .ExecuteAsync(Ct);

        Assert.True(response.IsSuccessStatusCode, $"batch failed: {response.StatusCode} {response.ErrorMessage}");
        Assert.Equal(3, response.Count);
        List<TestDocument> stored = await container.GetItemQueryIterator<TestDocument>("SELECT * FROM c").ReadAllAsync(Ct);
        Assert.Equal([first with { Score = 10 }, second], stored.OrderBy(d => d.Score is 10 ? 0 : 1));
    }

    [Fact]
    public async Task TransactionalBatch_OneFails_CommitsNothing()
    {
        fixture.Endpoint.SkipIfBundled("transactional batch (binary HybridRow bodies)");
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        TestDocument existing = TestDocument.Create("p0");
        await container.CreateItemAsync(existing, existing.PartitionKey, cancellationToken: Ct);

        using TransactionalBatchResponse response = await container.CreateTransactionalBatch(new PartitionKey("p0"))
            .CreateItem(TestDocument.Create("p0", score: 5))
            .CreateItem(existing)
            .ExecuteAsync(Ct);

        Assert.False(response.IsSuccessStatusCode);
        Assert.Equal(HttpStatusCode.Conflict, response[1].StatusCode);
        List<TestDocument> stored = await container.GetItemQueryIterator<TestDocument>("SELECT * FROM c").ReadAllAsync(Ct);
        Assert.Equal([existing], stored);
    }

    [Fact]
    public async Task Bulk_ManyConcurrentCreates_AllStored()
    {
        fixture.Endpoint.SkipIfBundled("bulk execution (binary HybridRow bodies)");
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        using CosmosClient bulkClient = fixture.Endpoint.CreateClient(options => options.AllowBulkExecution = true);
        Container bulkContainer = bulkClient.GetContainer(fixture.Database.Id, container.Id);
        TestDocument[] documents = [.. Enumerable.Range(0, 50).Select(i => TestDocument.Create($"p{i % 5}", score: i))];

        ItemResponse<TestDocument>[] responses = await Task.WhenAll(documents.Select(
            d => bulkContainer.CreateItemAsync(d, d.PartitionKey, cancellationToken: Ct)));

        Assert.All(responses, r => Assert.Equal(HttpStatusCode.Created, r.StatusCode));
        List<int> count = await container.GetItemQueryIterator<int>("SELECT VALUE COUNT(1) FROM c").ReadAllAsync(Ct);
        Assert.Equal(documents.Length, Assert.Single(count));
    }

    [Fact]
    public async Task Throughput_ContainerWithManualThroughput_ReadsItBack()
    {
        fixture.Endpoint.SkipIfBundled("throughput (offers)");
        ContainerResponse created = await fixture.Database.CreateContainerAsync(
            new ContainerProperties("c-" + Guid.NewGuid().ToString("N"), CosmosDatabaseFixture.DefaultPartitionKeyPath),
            throughput: 400,
            cancellationToken: Ct);

        int? throughput = await created.Container.ReadThroughputAsync(Ct);

        Assert.Equal(400, throughput);
    }

    [Fact]
    public async Task Query_DistinctAndOffsetLimit_ReturnsExpectedItems()
    {
        fixture.Endpoint.SkipIfBundled("DISTINCT and OFFSET/LIMIT (its SQL parser rejects them)");
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        IReadOnlyList<TestDocument> documents = await TestDocument.SeedAsync(container, 9, 3, Ct);

        List<string> partitions = await container
            .GetItemQueryIterator<string>("SELECT DISTINCT VALUE c.pk FROM c").ReadAllAsync(Ct);
        List<TestDocument> window = await container
            .GetItemQueryIterator<TestDocument>("SELECT * FROM c ORDER BY c.score OFFSET 2 LIMIT 3").ReadAllAsync(Ct);

        Assert.Equal(["p0", "p1", "p2"], partitions.Order(StringComparer.Ordinal));
        Assert.Equal(documents.OrderBy(d => d.Score).Skip(2).Take(3), window);
    }
}
