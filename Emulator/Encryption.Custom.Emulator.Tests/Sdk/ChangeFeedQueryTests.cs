using System.Text;

namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// A change feed request that carries a query: what the SDK's change feed with a query definition sends (a change
/// feed request with a <c>{"query": ...}</c> body; the API is internal in SDK 3.64, so a request handler adds the
/// body to an ordinary change feed request here). Cosmos DB answers it as a change feed, with an ETag to continue
/// from; the bundled endpoint cannot filter change feed pages and refuses it (400) instead of answering it as
/// something else.
/// </summary>
public sealed class ChangeFeedQueryTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private sealed class ChangeFeedQueryHandler : RequestHandler
    {
        public override Task<ResponseMessage> SendAsync(RequestMessage request, CancellationToken cancellationToken)
        {
            if (request.Headers["A-IM"] is not null)
            {
                request.Content = new MemoryStream(Encoding.UTF8.GetBytes("""{"query":"SELECT * FROM c WHERE c.score > 1"}"""));
                request.Headers.Set("Content-Type", "application/query+json");
            }

            return base.SendAsync(request, cancellationToken);
        }
    }

    [Fact]
    public async Task ChangeFeedWithAQuery_IsServedAsAChangeFeedOrRefused_NeverAnsweredAsAPlainQuery()
    {
        Container created = await fixture.CreateSingleRangeContainerAsync(cancellationToken: Ct);
        await TestDocument.SeedAsync(created, 4, 1, Ct);
        using CosmosClient client = fixture.Endpoint.CreateClient(o => o.CustomHandlers.Add(new ChangeFeedQueryHandler()));
        Container container = client.GetContainer(created.Database.Id, created.Id);
        using FeedIterator iterator = container.GetChangeFeedStreamIterator(ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion);

        using ResponseMessage page = await iterator.ReadNextAsync(Ct);

        if (fixture.Endpoint.IsBundled)
        {
            Assert.Equal(HttpStatusCode.BadRequest, page.StatusCode);
            Assert.Contains("change feed with a query", page.ErrorMessage, StringComparison.Ordinal);
        }
        else
        {
            Assert.True(page.StatusCode is HttpStatusCode.OK or HttpStatusCode.NotModified);
            Assert.False(string.IsNullOrEmpty(page.Headers.ETag));
        }
    }
}
