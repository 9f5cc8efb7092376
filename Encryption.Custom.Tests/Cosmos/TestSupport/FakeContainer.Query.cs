using System.Globalization;
using System.Net;
using System.Text;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos.TestSupport;

/// <summary>The fake container's queries: every document in id order, in pages; the query text is not evaluated.</summary>
public sealed partial class FakeContainer
{
    public override FeedIterator GetItemQueryStreamIterator(QueryDefinition queryDefinition, string? continuationToken = null, QueryRequestOptions? requestOptions = null) =>
        new PageIterator(this, continuationToken, requestOptions?.MaxItemCount);

    public override FeedIterator GetItemQueryStreamIterator(string? queryText = null, string? continuationToken = null, QueryRequestOptions? requestOptions = null) =>
        new PageIterator(this, continuationToken, requestOptions?.MaxItemCount);

    // Pages like Cosmos: {"_rid":..,"Documents":[..],"_count":n}, with the continuation in a header while more remain.
    private sealed class PageIterator(FakeContainer container, string? continuationToken, int? maxItemCount) : FeedIterator
    {
        private int _next = continuationToken is null ? 0 : int.Parse(continuationToken, CultureInfo.InvariantCulture);
        private bool _done;

        public override bool HasMoreResults => !_done;

        public override Task<ResponseMessage> ReadNextAsync(CancellationToken cancellationToken = default)
        {
            List<JObject> all;
            lock (container._lock)
            {
                all = [.. container._items.Values.OrderBy(stored => (string)stored.Document["id"]!, StringComparer.Ordinal).Select(stored => (JObject)stored.Document.DeepClone())];
            }

            int take = Math.Min(maxItemCount is > 0 ? maxItemCount.Value : int.MaxValue, all.Count - _next);
            var page = new JArray(all.Skip(_next).Take(take));
            _next += take;
            _done = _next >= all.Count;
            var body = new JObject { ["_rid"] = "fake", ["Documents"] = page, ["_count"] = take };
            var response = new ResponseMessage(HttpStatusCode.OK) { Content = new MemoryStream(Encoding.UTF8.GetBytes(body.ToString(Newtonsoft.Json.Formatting.None))) };
            if (!_done)
            {
                response.Headers["x-ms-continuation"] = _next.ToString(CultureInfo.InvariantCulture);
            }

            return Task.FromResult(response);
        }
    }
}
