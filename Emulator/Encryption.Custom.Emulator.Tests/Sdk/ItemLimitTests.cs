using System.Text;

namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// Cosmos DB's item limits, as a client meets them: an item over 2 MB is 413 (RequestEntityTooLarge) in a point
/// write, a transactional batch and bulk, and is not stored; a patch that would make an item larger is 413 and
/// changes nothing; an id longer than 255 characters or with '/', '\',
/// '?' or '#' is 400; a partition key value over 2,048 bytes (hash v2) is 400.
/// </summary>
public sealed class ItemLimitTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private const int MaxItemBytes = 2 * 1024 * 1024;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    /// <summary>The JSON of an item of exactly <paramref name="bytes"/> bytes (ASCII padding).</summary>
    private static MemoryStream ItemOfSize(string id, string pk, int bytes)
    {
        string empty = $$"""{"id":"{{id}}","pk":"{{pk}}","pad":""}""";
        string json = empty.Insert(empty.Length - 2, new string('x', bytes - empty.Length));
        Assert.Equal(bytes, Encoding.UTF8.GetByteCount(json));
        return new MemoryStream(Encoding.UTF8.GetBytes(json));
    }

    private static MemoryStream Json(string json) => new(Encoding.UTF8.GetBytes(json));

    [Fact]
    public async Task ItemOver2MB_Is413_InPointWritesBatchAndBulk_AndNothingIsStored()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        string pk = "limits-" + Guid.NewGuid().ToString("N");
        string id = Guid.NewGuid().ToString("N");
        using CosmosClient bulkClient = fixture.Endpoint.CreateClient(o => o.AllowBulkExecution = true);
        Container bulk = bulkClient.GetContainer(container.Database.Id, container.Id);

        using ResponseMessage create = await container.CreateItemStreamAsync(ItemOfSize(id, pk, MaxItemBytes + 10), new PartitionKey(pk), cancellationToken: Ct);
        using ResponseMessage upsert = await container.UpsertItemStreamAsync(ItemOfSize(id, pk, MaxItemBytes + 10), new PartitionKey(pk), cancellationToken: Ct);
        using TransactionalBatchResponse batch = await container.CreateTransactionalBatch(new PartitionKey(pk))
            .CreateItemStream(ItemOfSize(id, pk, MaxItemBytes + 10))
            .ExecuteAsync(Ct);
        using ResponseMessage bulkCreate = await bulk.CreateItemStreamAsync(ItemOfSize(id, pk, MaxItemBytes + 10), new PartitionKey(pk), cancellationToken: Ct);
        using ResponseMessage fits = await container.CreateItemStreamAsync(ItemOfSize(id, pk, MaxItemBytes - 4096), new PartitionKey(pk), cancellationToken: Ct);
        using ResponseMessage replace = await container.ReplaceItemStreamAsync(ItemOfSize(id, pk, MaxItemBytes + 10), id, new PartitionKey(pk), cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, create.StatusCode);
        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, upsert.StatusCode);
        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, batch.StatusCode);
        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, batch[0].StatusCode);
        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, bulkCreate.StatusCode);
        Assert.Equal(HttpStatusCode.Created, fits.StatusCode);
        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, replace.StatusCode);
    }

    [Fact]
    public async Task PatchThatWouldMakeTheItemOver2MB_Is413_AndChangesNothing()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        string pk = "patch-limit-" + Guid.NewGuid().ToString("N");
        string id = Guid.NewGuid().ToString("N");
        using ResponseMessage created = await container.CreateItemStreamAsync(ItemOfSize(id, pk, 1_500_000), new PartitionKey(pk), cancellationToken: Ct);
        PatchOperation[] growth = [PatchOperation.Set("/more", new string('y', 600_000))];

        using ResponseMessage patched = await container.PatchItemStreamAsync(id, new PartitionKey(pk), growth, cancellationToken: Ct);
        using TransactionalBatchResponse batch = await container.CreateTransactionalBatch(new PartitionKey(pk)).PatchItem(id, growth).ExecuteAsync(Ct);
        using ResponseMessage read = await container.ReadItemStreamAsync(id, new PartitionKey(pk), cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, patched.StatusCode);
        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, batch[0].StatusCode);
        Assert.Equal(created.Headers.ETag, read.Headers.ETag);
    }

    [Theory]
    [InlineData("a/b")]
    [InlineData("a\\\\b")]
    [InlineData("a?b")]
    [InlineData("a#b")]
    [InlineData("too long")]
    public async Task InvalidId_Is400_AndNothingIsStored(string id)
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        string pk = "ids-" + Guid.NewGuid().ToString("N");
        string written = id == "too long" ? new string('i', 256) : id;

        using ResponseMessage create = await container.CreateItemStreamAsync(Json($$"""{"id":"{{written}}","pk":"{{pk}}"}"""), new PartitionKey(pk), cancellationToken: Ct);
        using TransactionalBatchResponse batch = await container.CreateTransactionalBatch(new PartitionKey(pk))
            .CreateItemStream(Json($$"""{"id":"{{written}}","pk":"{{pk}}"}"""))
            .ExecuteAsync(Ct);
        List<dynamic> stored = await container.GetItemQueryIterator<dynamic>(
            "SELECT * FROM c", requestOptions: new QueryRequestOptions { PartitionKey = new PartitionKey(pk) }).ReadAllAsync(Ct);

        Assert.Equal(HttpStatusCode.BadRequest, create.StatusCode);
        Assert.Equal(HttpStatusCode.BadRequest, batch[0].StatusCode);
        Assert.Empty(stored);
    }

    [Fact]
    public async Task PartitionKeyValueOver2048Bytes_Is400_2048IsStored()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        string longest = Guid.NewGuid().ToString("N") + new string('k', 2048 - 32);
        string tooLong = longest + "k";

        using ResponseMessage refused = await container.CreateItemStreamAsync(Json($$"""{"id":"a","pk":"{{tooLong}}"}"""), new PartitionKey(tooLong), cancellationToken: Ct);
        using ResponseMessage stored = await container.CreateItemStreamAsync(Json($$"""{"id":"a","pk":"{{longest}}"}"""), new PartitionKey(longest), cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.BadRequest, refused.StatusCode);
        Assert.Equal(HttpStatusCode.Created, stored.StatusCode);
    }
}
