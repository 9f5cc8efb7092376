namespace Encryption.Custom.Emulator.Tests.Sdk;

public sealed class ChangeFeedTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static FeedIterator<TestDocument> Changes(Container container, ChangeFeedStartFrom start, int? pageSize = null) =>
        container.GetChangeFeedIterator<TestDocument>(
            start, ChangeFeedMode.LatestVersion, new ChangeFeedRequestOptions { PageSizeHint = pageSize });

    private static async Task<List<TestDocument>> ReadChangesAsync(FeedIterator<TestDocument> iterator) =>
        [.. (await iterator.ReadChangesAsync(Ct)).Pages.SelectMany(page => page)];

    private static async Task<TestDocument> CreateAsync(Container container, string pk, int value)
    {
        TestDocument document = TestDocument.Create(pk, $"Name{value}", value);
        await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
        return document;
    }

    [Fact]
    public async Task ChangeFeed_FromBeginning_ReturnsLatestVersionOfEveryItemOnce()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        IReadOnlyList<TestDocument> documents = await TestDocument.SeedAsync(container, 5, 2, Ct);
        TestDocument updated = documents[1] with { Name = "Updated" };
        await container.ReplaceItemAsync(updated, updated.Id, updated.PartitionKey, cancellationToken: Ct);
        await container.DeleteItemAsync<TestDocument>(documents[3].Id, documents[3].PartitionKey, cancellationToken: Ct);

        List<TestDocument> changes = await ReadChangesAsync(Changes(container, ChangeFeedStartFrom.Beginning()));

        TestDocument[] expected = [documents[0], updated, documents[2], documents[4]];
        Assert.Equal(expected.OrderBy(d => d.Score), changes.OrderBy(d => d.Score));
    }

    [Fact]
    public async Task ChangeFeed_FromNow_ReturnsOnlyLaterWrites()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        await TestDocument.SeedAsync(container, 3, 2, Ct);
        FeedIterator<TestDocument> iterator = Changes(container, ChangeFeedStartFrom.Now());

        List<TestDocument> before = await ReadChangesAsync(iterator);
        TestDocument later1 = await CreateAsync(container, "p0", 100);
        TestDocument later2 = await CreateAsync(container, "p1", 101);
        List<TestDocument> after = await ReadChangesAsync(iterator);
        List<TestDocument> nothingMore = await ReadChangesAsync(iterator);

        Assert.Empty(before);
        Assert.Equal([later1, later2], after.OrderBy(d => d.Score));
        Assert.Empty(nothingMore);
    }

    [Fact]
    public async Task ChangeFeed_FromContinuation_ResumesAfterWhatWasRead()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        await TestDocument.SeedAsync(container, 4, 2, Ct);
        (IReadOnlyList<FeedResponse<TestDocument>> firstPages, string continuation) =
            await Changes(container, ChangeFeedStartFrom.Beginning()).ReadChangesAsync(Ct);

        TestDocument later = await CreateAsync(container, "p1", 50);
        List<TestDocument> resumed = await ReadChangesAsync(Changes(container, ChangeFeedStartFrom.ContinuationToken(continuation)));

        Assert.Equal(4, firstPages.Sum(page => page.Count));
        Assert.Equal([later], resumed);
    }

    [Fact]
    public async Task ChangeFeed_FromTime_ReturnsOnlyItemsWrittenSinceThen()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        await TestDocument.SeedAsync(container, 2, 1, Ct);
        // Item timestamps (_ts) have whole-second resolution and come from the server's clock: start a second
        // before now (tolerating some clock skew) yet well after the seeded items.
        await Task.Delay(TimeSpan.FromSeconds(2.5), Ct);
        DateTime start = DateTime.UtcNow.AddSeconds(-1);
        TestDocument later = await CreateAsync(container, "p0", 10);

        List<TestDocument> changes = await ReadChangesAsync(Changes(container, ChangeFeedStartFrom.Time(start)));

        Assert.Equal([later], changes);
    }

    [Fact]
    public async Task ChangeFeed_SmallPageSize_ReturnsSeveralPagesWithEveryItemOnce()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        IReadOnlyList<TestDocument> documents = await TestDocument.SeedAsync(container, 7, 3, Ct);

        (IReadOnlyList<FeedResponse<TestDocument>> pages, _) =
            await Changes(container, ChangeFeedStartFrom.Beginning(), pageSize: 3).ReadChangesAsync(Ct);

        Assert.True(pages.Count >= 3, $"expected at least 3 pages, got {pages.Count}");
        Assert.All(pages, page => Assert.InRange(page.Count, 1, 3));
        Assert.Equal(documents.OrderBy(d => d.Score), pages.SelectMany(page => page).OrderBy(d => d.Score));
    }

    [Fact]
    public async Task ChangeFeed_PartitionScoped_ReturnsOnlyThatPartition()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        IReadOnlyList<TestDocument> documents = await TestDocument.SeedAsync(container, 9, 3, Ct);
        FeedRange p1 = FeedRange.FromPartitionKey(new PartitionKey("p1"));

        FeedIterator<TestDocument> iterator = Changes(container, ChangeFeedStartFrom.Beginning(p1), pageSize: 2);
        List<TestDocument> initial = await ReadChangesAsync(iterator);
        await CreateAsync(container, "p2", 200);
        TestDocument laterInP1 = await CreateAsync(container, "p1", 201);
        List<TestDocument> later = await ReadChangesAsync(iterator);

        Assert.Equal(documents.Where(d => d.Pk == "p1").OrderBy(d => d.Score), initial.OrderBy(d => d.Score));
        Assert.Equal([laterInP1], later);
    }

    [Fact]
    public async Task ChangeFeedStream_FromBeginning_ReturnsDocumentsEnvelope()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        IReadOnlyList<TestDocument> documents = await TestDocument.SeedAsync(container, 3, 1, Ct);
        using FeedIterator iterator = container.GetChangeFeedStreamIterator(ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion);
        var ids = new List<string>();

        while (true)
        {
            using ResponseMessage page = await iterator.ReadNextAsync(Ct);
            if (page.StatusCode == HttpStatusCode.NotModified)
            {
                break;
            }

            Assert.Equal(HttpStatusCode.OK, page.StatusCode);
            using var json = await System.Text.Json.JsonDocument.ParseAsync(page.Content, cancellationToken: Ct);
            ids.AddRange(json.RootElement.GetProperty("Documents").EnumerateArray().Select(d => d.GetProperty("id").GetString()!));
            Assert.True(ids.Count <= documents.Count, "The change feed repeated items.");
        }

        Assert.Equal(documents.Select(d => d.Id).Order(StringComparer.Ordinal), ids.Order(StringComparer.Ordinal));
    }
}
