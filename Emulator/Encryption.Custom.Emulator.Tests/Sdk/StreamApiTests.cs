using System.Text;
using System.Text.Json;

namespace Encryption.Custom.Emulator.Tests.Sdk;

public sealed class StreamApiTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static MemoryStream Json(string id, string pk, int value) =>
        new(Encoding.UTF8.GetBytes($$"""{"id":"{{id}}","pk":"{{pk}}","name":"Stream","score":{{value}}}"""));

    private static async Task<JsonElement> ReadJsonAsync(Stream content)
    {
        using JsonDocument document = await JsonDocument.ParseAsync(content, cancellationToken: Ct);
        return document.RootElement.Clone();
    }

    [Fact]
    public async Task CreateItemStream_ThenReadItemStream_RoundTripsJson()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        string id = Guid.NewGuid().ToString("N");

        using (ResponseMessage created = await container.CreateItemStreamAsync(Json(id, "p0", 5), new PartitionKey("p0"), cancellationToken: Ct))
        {
            Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        }

        using ResponseMessage read = await container.ReadItemStreamAsync(id, new PartitionKey("p0"), cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.OK, read.StatusCode);
        JsonElement body = await ReadJsonAsync(read.Content);
        Assert.Equal(id, body.GetProperty("id").GetString());
        Assert.Equal(5, body.GetProperty("score").GetInt32());
        Assert.Equal(read.Headers.ETag, body.GetProperty("_etag").GetString());
    }

    [Fact]
    public async Task ReadItemStream_MissingItem_ReturnsNotFoundWithoutThrowing()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);

        using ResponseMessage read = await container.ReadItemStreamAsync(Guid.NewGuid().ToString("N"), new PartitionKey("p0"), cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.NotFound, read.StatusCode);
        Assert.False(read.IsSuccessStatusCode);
    }

    [Fact]
    public async Task ReplaceItemStream_StaleEtag_ReturnsPreconditionFailed()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        string id = Guid.NewGuid().ToString("N");
        using ResponseMessage created = await container.CreateItemStreamAsync(Json(id, "p0", 1), new PartitionKey("p0"), cancellationToken: Ct);
        string staleEtag = created.Headers.ETag;
        using ResponseMessage replaced = await container.ReplaceItemStreamAsync(
            Json(id, "p0", 2), id, new PartitionKey("p0"), new ItemRequestOptions { IfMatchEtag = staleEtag }, Ct);
        Assert.Equal(HttpStatusCode.OK, replaced.StatusCode);

        using ResponseMessage rejected = await container.ReplaceItemStreamAsync(
            Json(id, "p0", 3), id, new PartitionKey("p0"), new ItemRequestOptions { IfMatchEtag = staleEtag }, Ct);

        Assert.Equal(HttpStatusCode.PreconditionFailed, rejected.StatusCode);
        using ResponseMessage read = await container.ReadItemStreamAsync(id, new PartitionKey("p0"), cancellationToken: Ct);
        Assert.Equal(2, (await ReadJsonAsync(read.Content)).GetProperty("score").GetInt32());
    }

    [Fact]
    public async Task UpsertAndDeleteItemStream_ExistingItem_ReplaceThenRemove()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        string id = Guid.NewGuid().ToString("N");

        using ResponseMessage inserted = await container.UpsertItemStreamAsync(Json(id, "p1", 1), new PartitionKey("p1"), cancellationToken: Ct);
        using ResponseMessage updated = await container.UpsertItemStreamAsync(Json(id, "p1", 2), new PartitionKey("p1"), cancellationToken: Ct);
        using ResponseMessage deleted = await container.DeleteItemStreamAsync(id, new PartitionKey("p1"), cancellationToken: Ct);
        using ResponseMessage deletedAgain = await container.DeleteItemStreamAsync(id, new PartitionKey("p1"), cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.Created, inserted.StatusCode);
        Assert.Equal(HttpStatusCode.OK, updated.StatusCode);
        Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, deletedAgain.StatusCode);
    }
}
