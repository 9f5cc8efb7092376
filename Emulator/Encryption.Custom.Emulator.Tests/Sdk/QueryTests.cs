namespace Encryption.Custom.Emulator.Tests.Sdk;

public sealed class QueryTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private const int DocumentCount = 12;
    private const int PartitionCount = 3;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static QueryRequestOptions InPartition(string pk, int? maxItemCount = null) =>
        new() { PartitionKey = new PartitionKey(pk), MaxItemCount = maxItemCount };

    private async Task<(Container Container, IReadOnlyList<TestDocument> Documents)> SeedAsync()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        return (container, await TestDocument.SeedAsync(container, DocumentCount, PartitionCount, Ct));
    }

    [Fact]
    public async Task Query_WithParameters_ReturnsMatchingItems()
    {
        (Container container, IReadOnlyList<TestDocument> documents) = await SeedAsync();
        QueryDefinition query = new QueryDefinition("SELECT * FROM c WHERE c.score >= @min AND c.name != @excluded")
            .WithParameter("@min", 6)
            .WithParameter("@excluded", "Name8");

        List<TestDocument> found = await container.GetItemQueryIterator<TestDocument>(query).ReadAllAsync(Ct);

        TestDocument[] expected = [.. documents.Where(d => d.Score >= 6 && d.Name != "Name8")];
        Assert.Equal(expected.OrderBy(d => d.Score), found.OrderBy(d => d.Score));
    }

    [Fact]
    public async Task Query_CrossPartition_ReturnsItemsOfEveryPartition()
    {
        (Container container, IReadOnlyList<TestDocument> documents) = await SeedAsync();

        List<TestDocument> found = await container.GetItemQueryIterator<TestDocument>("SELECT * FROM c").ReadAllAsync(Ct);

        Assert.Equal(documents.OrderBy(d => d.Id, StringComparer.Ordinal), found.OrderBy(d => d.Id, StringComparer.Ordinal));
        Assert.Equal(PartitionCount, found.Select(d => d.Pk).Distinct().Count());
    }

    [Fact]
    public async Task Query_PartitionScoped_ReturnsOnlyThatPartition()
    {
        (Container container, IReadOnlyList<TestDocument> documents) = await SeedAsync();

        List<TestDocument> found = await container
            .GetItemQueryIterator<TestDocument>("SELECT * FROM c WHERE c.score > 0", requestOptions: InPartition("p1"))
            .ReadAllAsync(Ct);

        Assert.Equal(documents.Where(d => d.Pk == "p1" && d.Score > 0).OrderBy(d => d.Score), found.OrderBy(d => d.Score));
    }

    [Fact]
    public async Task Query_OrderByDescending_ReturnsItemsInOrder()
    {
        (Container container, IReadOnlyList<TestDocument> documents) = await SeedAsync();

        List<TestDocument> all = await container
            .GetItemQueryIterator<TestDocument>("SELECT * FROM c ORDER BY c.score DESC").ReadAllAsync(Ct);
        List<TestDocument> inPartition = await container
            .GetItemQueryIterator<TestDocument>("SELECT * FROM c ORDER BY c.score DESC", requestOptions: InPartition("p2"))
            .ReadAllAsync(Ct);

        Assert.Equal(documents.OrderByDescending(d => d.Score), all);
        Assert.Equal(documents.Where(d => d.Pk == "p2").OrderByDescending(d => d.Score), inPartition);
    }

    [Fact]
    public async Task Query_Top_ReturnsFirstItemsInOrder()
    {
        (Container container, IReadOnlyList<TestDocument> documents) = await SeedAsync();

        List<TestDocument> found = await container
            .GetItemQueryIterator<TestDocument>("SELECT TOP 3 * FROM c ORDER BY c.score").ReadAllAsync(Ct);

        Assert.Equal(documents.OrderBy(d => d.Score).Take(3), found);
    }

    [Fact]
    public async Task Query_Count_ReturnsNumberOfItems()
    {
        (Container container, IReadOnlyList<TestDocument> documents) = await SeedAsync();

        List<int> all = await container.GetItemQueryIterator<int>("SELECT VALUE COUNT(1) FROM c").ReadAllAsync(Ct);
        List<int> inPartition = await container
            .GetItemQueryIterator<int>("SELECT VALUE COUNT(1) FROM c", requestOptions: InPartition("p0"))
            .ReadAllAsync(Ct);

        Assert.Equal(DocumentCount, Assert.Single(all));
        Assert.Equal(documents.Count(d => d.Pk == "p0"), Assert.Single(inPartition));
    }

    [Fact]
    public async Task Query_SmallPages_ReturnsEveryItemExactlyOnce()
    {
        (Container container, IReadOnlyList<TestDocument> documents) = await SeedAsync();

        IReadOnlyList<FeedResponse<TestDocument>> pages = await container
            .GetItemQueryIterator<TestDocument>("SELECT * FROM c", requestOptions: new QueryRequestOptions { MaxItemCount = 5 })
            .ReadAllPagesAsync(Ct);

        Assert.True(pages.Count >= 3, $"expected at least 3 pages, got {pages.Count}");
        Assert.All(pages, page => Assert.InRange(page.Count, 0, 5));
        string[] ids = [.. pages.SelectMany(page => page).Select(d => d.Id)];
        Assert.Equal(documents.Select(d => d.Id).Order(StringComparer.Ordinal), ids.Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task Query_ResumedFromContinuationTokens_ReturnsEveryItemExactlyOnce()
    {
        (Container container, IReadOnlyList<TestDocument> documents) = await SeedAsync();
        const string Sql = "SELECT * FROM c ORDER BY c.score";
        var options = new QueryRequestOptions { MaxItemCount = 4 };

        // A fresh iterator per page, each started from the previous page's token (as a stateless web API would).
        var found = new List<TestDocument>();
        string? continuation = null;
        int pageCount = 0;
        do
        {
            using FeedIterator<TestDocument> iterator = container.GetItemQueryIterator<TestDocument>(Sql, continuation, options);
            FeedResponse<TestDocument> page = await iterator.ReadNextAsync(Ct);
            found.AddRange(page);
            continuation = page.ContinuationToken;
            pageCount++;
            Assert.True(pageCount <= DocumentCount, "The continuation tokens did not converge.");
        }
        while (continuation is not null);

        Assert.True(pageCount >= 3, $"expected at least 3 pages, got {pageCount}");
        Assert.Equal(documents.OrderBy(d => d.Score), found);
    }

    [Fact]
    public async Task Query_PartitionScopedSmallPages_ReturnsEveryItemOfPartitionOnce()
    {
        (Container container, IReadOnlyList<TestDocument> documents) = await SeedAsync();

        IReadOnlyList<FeedResponse<TestDocument>> pages = await container
            .GetItemQueryIterator<TestDocument>("SELECT * FROM c", requestOptions: InPartition("p1", maxItemCount: 2))
            .ReadAllPagesAsync(Ct);

        Assert.True(pages.Count >= 2, $"expected at least 2 pages, got {pages.Count}");
        Assert.Equal(
            documents.Where(d => d.Pk == "p1").Select(d => d.Id).Order(StringComparer.Ordinal),
            pages.SelectMany(page => page).Select(d => d.Id).Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task QueryStream_CrossPartition_ReturnsDocumentsEnvelope()
    {
        (Container container, IReadOnlyList<TestDocument> documents) = await SeedAsync();
        var ids = new List<string>();

        using FeedIterator iterator = container.GetItemQueryStreamIterator(
            new QueryDefinition("SELECT c.id FROM c WHERE c.score < @max").WithParameter("@max", 5));
        while (iterator.HasMoreResults)
        {
            using ResponseMessage page = await iterator.ReadNextAsync(Ct);
            Assert.Equal(HttpStatusCode.OK, page.StatusCode);
            using var json = await System.Text.Json.JsonDocument.ParseAsync(page.Content, cancellationToken: Ct);
            ids.AddRange(json.RootElement.GetProperty("Documents").EnumerateArray().Select(d => d.GetProperty("id").GetString()!));
        }

        Assert.Equal(documents.Where(d => d.Score < 5).Select(d => d.Id).Order(StringComparer.Ordinal), ids.Order(StringComparer.Ordinal));
    }
}
