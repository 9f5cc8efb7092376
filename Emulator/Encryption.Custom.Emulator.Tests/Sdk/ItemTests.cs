namespace Encryption.Custom.Emulator.Tests.Sdk;

public sealed class ItemTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task CreateItem_NewId_IsReadBackWithSameEtag()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument document = TestDocument.Create(name: "Créé ✓", score: 42);

        ItemResponse<TestDocument> created = await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
        ItemResponse<TestDocument> read = await container.ReadItemAsync<TestDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        Assert.Equal(document, created.Resource);
        Assert.False(string.IsNullOrEmpty(created.ETag));
        Assert.Equal(HttpStatusCode.OK, read.StatusCode);
        Assert.Equal(document, read.Resource);
        Assert.Equal(created.ETag, read.ETag);
    }

    [Fact]
    public async Task CreateItem_ExistingId_ThrowsConflict()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument document = TestDocument.Create();
        await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);

        CosmosException ex = await Assert.ThrowsAsync<CosmosException>(
            () => container.CreateItemAsync(document with { Score = 1 }, document.PartitionKey, cancellationToken: Ct));

        Assert.Equal(HttpStatusCode.Conflict, ex.StatusCode);
    }

    [Fact]
    public async Task ReplaceItem_CurrentEtag_ReplacesAndChangesEtag()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument document = TestDocument.Create();
        ItemResponse<TestDocument> created = await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);

        TestDocument changed = document with { Name = "Beta", Score = 7 };
        ItemResponse<TestDocument> replaced = await container.ReplaceItemAsync(
            changed, document.Id, document.PartitionKey, new ItemRequestOptions { IfMatchEtag = created.ETag }, Ct);

        Assert.Equal(HttpStatusCode.OK, replaced.StatusCode);
        Assert.NotEqual(created.ETag, replaced.ETag);
        ItemResponse<TestDocument> read = await container.ReadItemAsync<TestDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.Equal(changed, read.Resource);
    }

    [Fact]
    public async Task ReplaceItem_StaleEtag_ThrowsPreconditionFailedAndKeepsItem()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument document = TestDocument.Create();
        ItemResponse<TestDocument> created = await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
        TestDocument first = document with { Score = 1 };
        await container.ReplaceItemAsync(first, document.Id, document.PartitionKey, cancellationToken: Ct);

        CosmosException ex = await Assert.ThrowsAsync<CosmosException>(() => container.ReplaceItemAsync(
            document with { Score = 2 }, document.Id, document.PartitionKey,
            new ItemRequestOptions { IfMatchEtag = created.ETag }, Ct));

        Assert.Equal(HttpStatusCode.PreconditionFailed, ex.StatusCode);
        ItemResponse<TestDocument> read = await container.ReadItemAsync<TestDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.Equal(first, read.Resource);
    }

    [Fact]
    public async Task UpsertItem_NewThenExisting_CreatesThenReplaces()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument document = TestDocument.Create();

        ItemResponse<TestDocument> inserted = await container.UpsertItemAsync(document, document.PartitionKey, cancellationToken: Ct);
        TestDocument changed = document with { Score = 99 };
        ItemResponse<TestDocument> updated = await container.UpsertItemAsync(changed, document.PartitionKey, cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.Created, inserted.StatusCode);
        Assert.Equal(HttpStatusCode.OK, updated.StatusCode);
        ItemResponse<TestDocument> read = await container.ReadItemAsync<TestDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.Equal(changed, read.Resource);
    }

    [Fact]
    public async Task DeleteItem_Existing_RemovesItem()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument document = TestDocument.Create();
        await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);

        ItemResponse<TestDocument> deleted = await container.DeleteItemAsync<TestDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        CosmosException ex = await Assert.ThrowsAsync<CosmosException>(
            () => container.ReadItemAsync<TestDocument>(document.Id, document.PartitionKey, cancellationToken: Ct));
        Assert.Equal(HttpStatusCode.NotFound, ex.StatusCode);
    }

    [Fact]
    public async Task ReadItem_MissingId_ThrowsNotFound()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);

        CosmosException ex = await Assert.ThrowsAsync<CosmosException>(
            () => container.ReadItemAsync<TestDocument>(Guid.NewGuid().ToString("N"), new PartitionKey("p0"), cancellationToken: Ct));

        Assert.Equal(HttpStatusCode.NotFound, ex.StatusCode);
    }

    [Fact]
    public async Task ReadItem_WrongPartitionKey_ThrowsNotFound()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument document = TestDocument.Create(pk: "p0");
        await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);

        CosmosException ex = await Assert.ThrowsAsync<CosmosException>(
            () => container.ReadItemAsync<TestDocument>(document.Id, new PartitionKey("p1"), cancellationToken: Ct));

        Assert.Equal(HttpStatusCode.NotFound, ex.StatusCode);
    }

    [Fact]
    public async Task CreateItem_SameIdInTwoPartitions_KeepsBothApart()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument inFirst = TestDocument.Create(pk: "p0", score: 1);
        TestDocument inSecond = inFirst with { Pk = "p1", Score = 2 };

        await container.CreateItemAsync(inFirst, inFirst.PartitionKey, cancellationToken: Ct);
        await container.CreateItemAsync(inSecond, inSecond.PartitionKey, cancellationToken: Ct);

        Assert.Equal(inFirst, (await container.ReadItemAsync<TestDocument>(inFirst.Id, inFirst.PartitionKey, cancellationToken: Ct)).Resource);
        Assert.Equal(inSecond, (await container.ReadItemAsync<TestDocument>(inSecond.Id, inSecond.PartitionKey, cancellationToken: Ct)).Resource);
    }
}
