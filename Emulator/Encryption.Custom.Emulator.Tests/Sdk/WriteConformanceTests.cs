namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// Single-document writes answered as Cosmos DB answers them (REST reference and the SDK's behaviour): the
/// partition key header must match the document, a replace may rename, a missing target is 404, and
/// <see cref="ItemRequestOptions.EnableContentResponseOnWrite"/> = false leaves the body out.
/// </summary>
public sealed class WriteConformanceTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static readonly ItemRequestOptions s_noContent = new() { EnableContentResponseOnWrite = false };

    [Fact]
    public async Task Writes_WhosePartitionKeyDiffersFromTheHeader_Are400AndStoreNothing()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument document = TestDocument.Create(pk: "a");
        TestDocument existing = TestDocument.Create(pk: "b");
        await container.CreateItemAsync(existing, existing.PartitionKey, cancellationToken: Ct);

        CosmosException create = await Assert.ThrowsAsync<CosmosException>(() => container.CreateItemAsync(document, new PartitionKey("b"), cancellationToken: Ct));
        CosmosException upsert = await Assert.ThrowsAsync<CosmosException>(() => container.UpsertItemAsync(document, new PartitionKey("b"), cancellationToken: Ct));
        CosmosException replace = await Assert.ThrowsAsync<CosmosException>(() => container.ReplaceItemAsync(existing with { Pk = "a" }, existing.Id, existing.PartitionKey, cancellationToken: Ct));

        Assert.All(new[] { create, upsert, replace }, ex => Assert.Equal(HttpStatusCode.BadRequest, ex.StatusCode));
        using ResponseMessage inA = await container.ReadItemStreamAsync(document.Id, new PartitionKey("a"), cancellationToken: Ct);
        using ResponseMessage inB = await container.ReadItemStreamAsync(document.Id, new PartitionKey("b"), cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, inA.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, inB.StatusCode);
        Assert.Equal(existing, (await container.ReadItemAsync<TestDocument>(existing.Id, existing.PartitionKey, cancellationToken: Ct)).Resource);
    }

    [Fact]
    public async Task Replace_WithAnotherIdInTheBody_RenamesTheDocument()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument document = TestDocument.Create();
        await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
        TestDocument renamed = document with { Id = Guid.NewGuid().ToString("N"), Score = 7 };

        ItemResponse<TestDocument> replaced = await container.ReplaceItemAsync(renamed, document.Id, document.PartitionKey, cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.OK, replaced.StatusCode);
        Assert.Equal(renamed, replaced.Resource);
        Assert.Equal(renamed, (await container.ReadItemAsync<TestDocument>(renamed.Id, renamed.PartitionKey, cancellationToken: Ct)).Resource);
        using ResponseMessage old = await container.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, old.StatusCode);
    }

    [Fact]
    public async Task Replace_RenamingOntoAnExistingId_Is409AndChangesNothing()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument first = TestDocument.Create();
        TestDocument second = TestDocument.Create();
        await container.CreateItemAsync(first, first.PartitionKey, cancellationToken: Ct);
        await container.CreateItemAsync(second, second.PartitionKey, cancellationToken: Ct);

        CosmosException ex = await Assert.ThrowsAsync<CosmosException>(() => container.ReplaceItemAsync(first with { Id = second.Id }, first.Id, first.PartitionKey, cancellationToken: Ct));

        Assert.Equal(HttpStatusCode.Conflict, ex.StatusCode);
        Assert.Equal(first, (await container.ReadItemAsync<TestDocument>(first.Id, first.PartitionKey, cancellationToken: Ct)).Resource);
        Assert.Equal(second, (await container.ReadItemAsync<TestDocument>(second.Id, second.PartitionKey, cancellationToken: Ct)).Resource);
    }

    [Fact]
    public async Task Replace_OfAMissingIdWithAnEmptyBody_Is404()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);

        using ResponseMessage response = await container.ReplaceItemStreamAsync(new MemoryStream(), "missing-" + Guid.NewGuid().ToString("N"), new PartitionKey("p0"), cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
    }

    [Fact]
    public async Task Create_InAMissingContainerOrDatabase_Is404()
    {
        TestDocument document = TestDocument.Create();
        Container noContainer = fixture.Client.GetContainer(fixture.Database.Id, "missing-" + Guid.NewGuid().ToString("N"));
        Container noDatabase = fixture.Client.GetContainer("missing-" + Guid.NewGuid().ToString("N"), "missing");

        using ResponseMessage inNoContainer = await noContainer.CreateItemStreamAsync(ToStream(document), document.PartitionKey, cancellationToken: Ct);
        using ResponseMessage inNoDatabase = await noDatabase.CreateItemStreamAsync(ToStream(document), document.PartitionKey, cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.NotFound, inNoContainer.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, inNoDatabase.StatusCode);
    }

    [Fact]
    public async Task Writes_WithContentResponseOff_ReturnNoBodyButTheEtag()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument document = TestDocument.Create();

        ItemResponse<TestDocument> created = await container.CreateItemAsync(document, document.PartitionKey, s_noContent, Ct);
        ItemResponse<TestDocument> replaced = await container.ReplaceItemAsync(document with { Score = 1 }, document.Id, document.PartitionKey, s_noContent, Ct);
        ItemResponse<TestDocument> upserted = await container.UpsertItemAsync(document with { Score = 2 }, document.PartitionKey, s_noContent, Ct);
        ItemResponse<TestDocument> patched = await container.PatchItemAsync<TestDocument>(
            document.Id, document.PartitionKey, [PatchOperation.Set("/score", 3)], new PatchItemRequestOptions { EnableContentResponseOnWrite = false }, Ct);
        using ResponseMessage stream = await container.UpsertItemStreamAsync(ToStream(document with { Score = 4 }), document.PartitionKey, s_noContent, Ct);

        Assert.All(new ItemResponse<TestDocument>[] { created, replaced, upserted, patched }, response =>
        {
            Assert.True(response.StatusCode is HttpStatusCode.Created or HttpStatusCode.OK);
            Assert.Null(response.Resource);
            Assert.False(string.IsNullOrEmpty(response.ETag));
        });
        Assert.Equal(HttpStatusCode.OK, stream.StatusCode);
        Assert.True(stream.Content is null || stream.Content.Length == 0);
        Assert.Equal(document with { Score = 4 }, (await container.ReadItemAsync<TestDocument>(document.Id, document.PartitionKey, cancellationToken: Ct)).Resource);
    }

    [Fact]
    public async Task Writes_CarryTheOwnerAndPartitionKeyRangeOfTheContainer()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument document = TestDocument.Create();
        ContainerResponse properties = await container.ReadContainerAsync(cancellationToken: Ct);

        ItemResponse<TestDocument> created = await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);

        // x-ms-content-path is the owner id: the container's resource id, which keys the SDK's session tokens.
        Assert.Equal(ContainerResourceIds.Of(properties.Resource), created.Headers["x-ms-content-path"]);
        Assert.Equal(SessionTokens.Parse(created.Headers.Session).RangeId, created.Headers["x-ms-documentdb-partitionkeyrangeid"]);
    }

    private static MemoryStream ToStream(TestDocument document) =>
        new(System.Text.Encoding.UTF8.GetBytes(Newtonsoft.Json.JsonConvert.SerializeObject(document)));
}
