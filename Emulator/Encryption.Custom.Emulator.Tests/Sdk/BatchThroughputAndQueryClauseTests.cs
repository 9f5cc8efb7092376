namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// Transactional batch, bulk, throughput and the DISTINCT / OFFSET-LIMIT clauses through the plain SDK. The
/// bundled server serves them through its compatibility layer (Emulator/README.md); the same assertions hold
/// against Microsoft's emulator or an account.
/// </summary>
public sealed class BatchThroughputAndQueryClauseTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task TransactionalBatch_AllSucceed_CommitsEveryOperation()
    {
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
    public async Task TransactionalBatch_FailureAfterPatchAndDelete_RestoresEveryDocument()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        TestDocument kept = TestDocument.Create("p0", score: 1);
        TestDocument deleted = TestDocument.Create("p0", score: 2);
        await container.CreateItemAsync(kept, kept.PartitionKey, cancellationToken: Ct);
        await container.CreateItemAsync(deleted, deleted.PartitionKey, cancellationToken: Ct);

        using TransactionalBatchResponse response = await container.CreateTransactionalBatch(new PartitionKey("p0"))
            .PatchItem(kept.Id, [PatchOperation.Set("/score", 100)])
            .DeleteItem(deleted.Id)
            .UpsertItem(TestDocument.Create("p0", score: 3))
            .ReadItem("missing-" + Guid.NewGuid().ToString("N"))
            .ExecuteAsync(Ct);

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        Assert.Equal(
            [HttpStatusCode.FailedDependency, HttpStatusCode.FailedDependency, HttpStatusCode.FailedDependency, HttpStatusCode.NotFound],
            response.Select(r => r.StatusCode));
        List<TestDocument> stored = await container.GetItemQueryIterator<TestDocument>("SELECT * FROM c").ReadAllAsync(Ct);
        Assert.Equal([kept, deleted], stored.OrderBy(d => d.Score));
    }

    [Fact]
    public async Task TransactionalBatch_ConditionalPatchOfUnderscoreUserProperty_FollowsThePatchRules()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        TestDocument document = TestDocument.Create("p0", name: "Alpha");
        await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
        TransactionalBatchPatchItemRequestOptions When(string name) => new() { FilterPredicate = $"from c where c.name = '{name}'" };

        using TransactionalBatchResponse matching = await container.CreateTransactionalBatch(document.PartitionKey)
            .PatchItem(document.Id, [PatchOperation.Set("/_note", "first")], When("Alpha"))
            .ExecuteAsync(Ct);
        using TransactionalBatchResponse notMatching = await container.CreateTransactionalBatch(document.PartitionKey)
            .PatchItem(document.Id, [PatchOperation.Set("/_note", "second")], When("Beta"))
            .ExecuteAsync(Ct);

        Assert.True(matching.IsSuccessStatusCode, $"batch failed: {matching.StatusCode} {matching.ErrorMessage}");
        Assert.Equal(HttpStatusCode.PreconditionFailed, notMatching.StatusCode);
        using ResponseMessage read = await container.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct);
        using var reader = new StreamReader(read.Content);
        Newtonsoft.Json.Linq.JObject stored = Newtonsoft.Json.Linq.JObject.Parse(await reader.ReadToEndAsync(Ct));
        Assert.Equal("first", (string?)stored["_note"]);
    }

    [Fact]
    public async Task TransactionalBatch_MoreThan100Operations_IsRefusedWhole()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        TransactionalBatch batch = container.CreateTransactionalBatch(new PartitionKey("p0"));
        for (int i = 0; i < 101; i++)
        {
            batch.CreateItem(TestDocument.Create("p0", score: i));
        }

        using TransactionalBatchResponse response = await batch.ExecuteAsync(Ct);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        List<int> count = await container.GetItemQueryIterator<int>("SELECT VALUE COUNT(1) FROM c").ReadAllAsync(Ct);
        Assert.Equal(0, Assert.Single(count));
    }

    [Fact]
    public async Task TransactionalBatch_BodyOverTheRequestSizeLimit_IsRefusedWhole()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        string large = new('x', 1_500_000); // each document is under the 2 MB item limit, the three together are not
        TransactionalBatch batch = container.CreateTransactionalBatch(new PartitionKey("p0"));
        for (int i = 0; i < 3; i++)
        {
            batch.CreateItem(TestDocument.Create("p0", name: large, score: i));
        }

        using TransactionalBatchResponse response = await batch.ExecuteAsync(Ct);

        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, response.StatusCode);
        List<int> count = await container.GetItemQueryIterator<int>("SELECT VALUE COUNT(1) FROM c").ReadAllAsync(Ct);
        Assert.Equal(0, Assert.Single(count));
    }

    [Fact]
    public async Task Bulk_ManyConcurrentCreates_AllStored()
    {
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
        ContainerResponse created = await fixture.Database.CreateContainerAsync(
            new ContainerProperties("c-" + Guid.NewGuid().ToString("N"), CosmosDatabaseFixture.DefaultPartitionKeyPath),
            throughput: 400,
            cancellationToken: Ct);

        int? throughput = await created.Container.ReadThroughputAsync(Ct);

        Assert.Equal(400, throughput);
    }

    [Fact]
    public async Task Throughput_Replace_ReadsTheNewValueBack()
    {
        ContainerResponse created = await fixture.Database.CreateContainerAsync(
            new ContainerProperties("c-" + Guid.NewGuid().ToString("N"), CosmosDatabaseFixture.DefaultPartitionKeyPath),
            throughput: 400,
            cancellationToken: Ct);

        ThroughputResponse replaced = await created.Container.ReplaceThroughputAsync(500, cancellationToken: Ct);
        int? throughput = await created.Container.ReadThroughputAsync(Ct);

        Assert.Equal(500, replaced.Resource.Throughput);
        Assert.Equal(500, throughput);
    }

    [Fact]
    public async Task Query_DistinctAndOffsetLimitInOnePartition_ReturnsExpectedItems()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        IReadOnlyList<TestDocument> documents = await TestDocument.SeedAsync(container, 12, 2, Ct);
        var inP1 = new QueryRequestOptions { PartitionKey = new PartitionKey("p1") };

        List<string> names = await container
            .GetItemQueryIterator<string>("SELECT DISTINCT VALUE c.pk FROM c", requestOptions: inP1).ReadAllAsync(Ct);
        List<TestDocument> window = await container
            .GetItemQueryIterator<TestDocument>(
                new QueryDefinition("SELECT * FROM c ORDER BY c.score DESC OFFSET @skip LIMIT @take")
                    .WithParameter("@skip", 1).WithParameter("@take", 2),
                requestOptions: inP1)
            .ReadAllAsync(Ct);

        Assert.Equal(["p1"], names);
        Assert.Equal(documents.Where(d => d.Pk == "p1").OrderByDescending(d => d.Score).Skip(1).Take(2), window);
    }

    [Fact]
    public async Task Query_DistinctAndOffsetLimit_ReturnsExpectedItems()
    {
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
