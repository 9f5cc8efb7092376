namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// Containers with several physical partitions (partition key ranges), as Cosmos DB has them: the SDK routes
/// by its own effective partition keys, runs cross-partition queries per range and merges the pages from the
/// gateway's query plan, and carries on through a split (the old range answers 410/1002, the SDK reloads the
/// routing map and continues on the children). On the bundled server every container has several ranges and
/// <see cref="PartitionSplits"/> splits one; another endpoint has what its throughput gives and is not split.
/// </summary>
public sealed class PhysicalPartitionTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private const int DocumentCount = 36;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    // Scores repeat (0..8) so that ORDER BY needs its second key and DISTINCT has duplicates to drop.
    private async Task<(Container Container, IReadOnlyList<TestDocument> Documents)> SeedAsync()
    {
        // ORDER BY on two properties needs a composite index, on Cosmos DB as here (the bundled server's engine,
        // unlike Cosmos DB, does not serve an ORDER BY from the reverse of an index, so each order is listed).
        var properties = new ContainerProperties("c-" + Guid.NewGuid().ToString("N"), CosmosDatabaseFixture.DefaultPartitionKeyPath)
        {
            PartitionKeyDefinitionVersion = PartitionKeyDefinitionVersion.V2,
        };
        properties.IndexingPolicy.CompositeIndexes.Add([new() { Path = "/score" }, new() { Path = "/name" }]);
        properties.IndexingPolicy.CompositeIndexes.Add([new() { Path = "/score", Order = CompositePathSortOrder.Descending }, new() { Path = "/name" }]);
        properties.IndexingPolicy.CompositeIndexes.Add([new() { Path = "/score", Order = CompositePathSortOrder.Descending }, new() { Path = "/name", Order = CompositePathSortOrder.Descending }]);
        Container container = (await fixture.Database.CreateContainerAsync(properties, cancellationToken: Ct)).Container;
        var documents = new List<TestDocument>();
        for (int i = 0; i < DocumentCount; i++)
        {
            TestDocument document = TestDocument.Create($"key-{i}", $"Name{i:D2}", i % 9);
            await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
            documents.Add(document);
        }

        return (container, documents);
    }

    private static QueryRequestOptions SmallPages => new() { MaxItemCount = 4 };

    [Fact]
    public async Task EveryDocument_IsInExactlyOneFeedRange_AndFoundWhereTheSdkRoutesItsKey()
    {
        (Container container, IReadOnlyList<TestDocument> documents) = await SeedAsync();

        IReadOnlyList<FeedRange> ranges = await container.GetFeedRangesAsync(Ct);
        if (fixture.Endpoint.IsBundled)
        {
            Assert.True(ranges.Count > 1, $"expected several partition key ranges, found {ranges.Count}");
        }

        var found = new List<string>();
        foreach (FeedRange range in ranges)
        {
            List<TestDocument> inRange = await container
                .GetItemQueryIterator<TestDocument>(range, new QueryDefinition("SELECT * FROM c"), requestOptions: SmallPages)
                .ReadAllAsync(Ct);
            Assert.NotEmpty(inRange); // 36 keys hash into every range
            found.AddRange(inRange.Select(d => d.Id));
        }

        Assert.Equal(documents.Select(d => d.Id).Order(), found.Order());

        // A query scoped to a partition key goes to the range the SDK computes from the key's hash; the endpoint
        // refuses a key that the named range does not hold, so each answer proves both sides hash alike.
        foreach (TestDocument document in documents)
        {
            List<TestDocument> own = await container
                .GetItemQueryIterator<TestDocument>("SELECT * FROM c", requestOptions: new QueryRequestOptions { PartitionKey = document.PartitionKey })
                .ReadAllAsync(Ct);
            Assert.Equal(document, Assert.Single(own));
        }
    }

    public static TheoryData<string> OrderedQueries => new()
    {
        "SELECT * FROM c ORDER BY c.score, c.name",
        "SELECT * FROM c ORDER BY c.score DESC, c.name DESC",
        "SELECT TOP 7 * FROM c ORDER BY c.score DESC, c.name",
        "SELECT * FROM c ORDER BY c.score, c.name OFFSET 5 LIMIT 9",
        "SELECT c.id, c.pk, c.name, c.score FROM c WHERE c.score >= 3 ORDER BY c.score, c.name",
    };

    [Theory]
    [MemberData(nameof(OrderedQueries))]
    public async Task CrossPartitionOrderedQuery_MergesTheRangesInOrder(string sql)
    {
        (Container container, IReadOnlyList<TestDocument> documents) = await SeedAsync();
        IEnumerable<TestDocument> expected = sql.Contains("DESC", StringComparison.Ordinal)
            ? documents.OrderByDescending(d => d.Score).ThenBy(d => d.Name, StringComparer.Ordinal)
            : documents.OrderBy(d => d.Score).ThenBy(d => d.Name, StringComparer.Ordinal);
        if (sql.Contains("name DESC", StringComparison.Ordinal))
        {
            expected = documents.OrderByDescending(d => d.Score).ThenByDescending(d => d.Name, StringComparer.Ordinal);
        }

        if (sql.Contains("WHERE", StringComparison.Ordinal))
        {
            expected = expected.Where(d => d.Score >= 3);
        }

        expected = sql.Contains("TOP 7", StringComparison.Ordinal) ? expected.Take(7)
            : sql.Contains("OFFSET", StringComparison.Ordinal) ? expected.Skip(5).Take(9)
            : expected;

        List<TestDocument> actual = await container.GetItemQueryIterator<TestDocument>(sql, requestOptions: SmallPages).ReadAllAsync(Ct);

        Assert.Equal(expected.Select(d => d.Name), actual.Select(d => d.Name));
        Assert.Equal(expected, actual);
    }

    [Fact]
    public async Task CrossPartitionOrderedQuery_ResumedFromContinuationTokens_ReturnsEveryDocumentOnceInOrder()
    {
        (Container container, IReadOnlyList<TestDocument> documents) = await SeedAsync();

        // A fresh iterator per page, each started from the previous page's token (as a stateless web API would):
        // the SDK resumes every range from the token's sort values and resource id.
        var found = new List<TestDocument>();
        string? continuation = null;
        do
        {
            using FeedIterator<TestDocument> iterator = container.GetItemQueryIterator<TestDocument>(
                "SELECT * FROM c ORDER BY c.score, c.name", continuation, SmallPages);
            FeedResponse<TestDocument> page = await iterator.ReadNextAsync(Ct);
            found.AddRange(page);
            continuation = page.ContinuationToken;
            Assert.True(found.Count <= DocumentCount * 2, "The continuation tokens did not converge: " + continuation);
        }
        while (continuation is not null);

        Assert.Equal(documents.OrderBy(d => d.Score).ThenBy(d => d.Name, StringComparer.Ordinal).Select(d => d.Name), found.Select(d => d.Name));
    }

    [Fact]
    public async Task CrossPartitionDistinctAndAggregates_CombineEveryRange()
    {
        (Container container, IReadOnlyList<TestDocument> documents) = await SeedAsync();

        async Task<List<T>> QueryAsync<T>(string sql) =>
            await container.GetItemQueryIterator<T>(sql, requestOptions: SmallPages).ReadAllAsync(Ct);

        Assert.Equal(documents.Select(d => d.Score).Distinct().Order(), (await QueryAsync<int>("SELECT DISTINCT VALUE c.score FROM c")).Order());
        Assert.Equal(documents.Count, Assert.Single(await QueryAsync<int>("SELECT VALUE COUNT(1) FROM c")));
        Assert.Equal(documents.Count(d => d.Score > 4), Assert.Single(await QueryAsync<int>("SELECT VALUE COUNT(1) FROM c WHERE c.score > 4")));
        Assert.Equal(documents.Sum(d => d.Score), Assert.Single(await QueryAsync<int>("SELECT VALUE SUM(c.score) FROM c")));
        Assert.Equal(documents.Min(d => d.Score), Assert.Single(await QueryAsync<int>("SELECT VALUE MIN(c.score) FROM c")));
        Assert.Equal(documents.Select(d => d.Name).Max(StringComparer.Ordinal), Assert.Single(await QueryAsync<string>("SELECT VALUE MAX(c.name) FROM c")));
        Assert.Equal(documents.Average(d => d.Score), Assert.Single(await QueryAsync<double>("SELECT VALUE AVG(c.score) FROM c")), 6);
        // A range with no match counts for nothing: MIN over values found in one range only.
        Assert.Equal(8, Assert.Single(await QueryAsync<int>("SELECT VALUE MIN(c.score) FROM c WHERE c.score = 8")));
    }

    [Fact]
    public async Task Split_DuringPaginatedOrderedQuery_LosesAndRepeatsNothing()
    {
        (Container container, IReadOnlyList<TestDocument> documents) = await SeedAsync();
        using FeedIterator<TestDocument> query = container.GetItemQueryIterator<TestDocument>(
            "SELECT * FROM c ORDER BY c.score, c.name", requestOptions: SmallPages);

        var actual = new List<TestDocument>();
        actual.AddRange(await query.ReadNextAsync(Ct));
        actual.AddRange(await query.ReadNextAsync(Ct));
        bool split = await PartitionSplits.SplitAsync(fixture.Endpoint, container, cancellationToken: Ct);
        Assert.Equal(fixture.Endpoint.IsBundled, split);
        actual.AddRange(await query.ReadAllAsync(Ct));

        Assert.Equal(documents.OrderBy(d => d.Score).ThenBy(d => d.Name, StringComparer.Ordinal), actual);
    }

    [Fact]
    public async Task Split_DuringChangeFeed_EveryDocumentOnce_AndTheContinuationCarriesOn()
    {
        (Container container, IReadOnlyList<TestDocument> documents) = await SeedAsync();
        FeedIterator<TestDocument> feed = container.GetChangeFeedIterator<TestDocument>(
            ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion, new ChangeFeedRequestOptions { PageSizeHint = 4 });

        var seen = new List<TestDocument>();
        seen.AddRange(await feed.ReadNextAsync(Ct));
        Assert.True(await PartitionSplits.SplitAsync(fixture.Endpoint, container, cancellationToken: Ct) || !fixture.Endpoint.IsBundled);
        var later = new List<TestDocument>();
        for (int i = 0; i < 12; i++)
        {
            TestDocument document = TestDocument.Create($"later-{i}", $"Later{i}", i);
            await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
            later.Add(document);
        }

        (IReadOnlyList<FeedResponse<TestDocument>> pages, string continuation) = await feed.ReadChangesAsync(Ct);
        seen.AddRange(pages.SelectMany(p => p));
        Assert.Equal(documents.Concat(later).Select(d => d.Id).Order(), seen.Select(d => d.Id).Order());

        TestDocument last = TestDocument.Create("after-split", "Last", 1);
        await container.CreateItemAsync(last, last.PartitionKey, cancellationToken: Ct);
        (IReadOnlyList<FeedResponse<TestDocument>> resumed, _) = await container
            .GetChangeFeedIterator<TestDocument>(ChangeFeedStartFrom.ContinuationToken(continuation), ChangeFeedMode.LatestVersion)
            .ReadChangesAsync(Ct);
        Assert.Equal(last, Assert.Single(resumed.SelectMany(p => p)));
    }
}
