using System.Globalization;
using System.Net;
using System.Text;
using System.Text.Json.Nodes;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Keys.TestSupport;

/// <summary>
/// A seam-test double for the stream calls the key layer makes on a <see cref="Container"/>: documents in memory,
/// ETags, 404/409/412, and system properties the way Cosmos adds them. Everything else throws.
/// </summary>
internal sealed partial class FakeContainer(string id, string partitionKeyPath = "/id") : Container
{
    private readonly Dictionary<string, JsonObject> _documents = new(StringComparer.Ordinal);
    private readonly Lock _gate = new();
    private int _etagCounter;

    public override string Id { get; } = id;

    public override Database Database => throw new NotSupportedException();

    public string PartitionKeyPath { get; } = partitionKeyPath;

    /// <summary>Every body the key layer wrote, as UTF-8 text, in order.</summary>
    public List<string> WrittenBodies { get; } = [];

    /// <summary>How many of the next replaces find the document changed by "another writer" (412).</summary>
    public int ConcurrentWritesBeforeReplace { get; set; }

    public int ReplaceCount { get; private set; }

    public int ReadCount { get; private set; }

    /// <summary>Stores a document as another library or process would have written it.</summary>
    public string Seed(string json)
    {
        JsonObject document = JsonNode.Parse(json)!.AsObject();
        lock (_gate)
        {
            return Store(document);
        }
    }

    public JsonObject? GetDocument(string documentId)
    {
        lock (_gate)
        {
            return _documents.TryGetValue(documentId, out JsonObject? document) ? (JsonObject)document.DeepClone() : null;
        }
    }

    public override async Task<ResponseMessage> CreateItemStreamAsync(Stream streamPayload, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        JsonObject document = await ReadBodyAsync(streamPayload, cancellationToken);
        lock (_gate)
        {
            string documentId = document["id"]!.GetValue<string>();
            CheckPartitionKey(partitionKey, documentId);
            if (_documents.ContainsKey(documentId))
            {
                return new ResponseMessage(HttpStatusCode.Conflict, errorMessage: "Entity with the specified id already exists in the system.");
            }

            Store(document);
            return Respond(HttpStatusCode.Created, documentId, requestOptions, isWrite: true);
        }
    }

    public override Task<ResponseMessage> ReadItemStreamAsync(string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        lock (_gate)
        {
            ReadCount++;
            CheckPartitionKey(partitionKey, id);
            return Task.FromResult(_documents.ContainsKey(id)
                ? Respond(HttpStatusCode.OK, id, requestOptions, isWrite: false)
                : new ResponseMessage(HttpStatusCode.NotFound, errorMessage: "Resource Not Found."));
        }
    }

    public override async Task<ResponseMessage> ReplaceItemStreamAsync(Stream streamPayload, string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        JsonObject document = await ReadBodyAsync(streamPayload, cancellationToken);
        lock (_gate)
        {
            ReplaceCount++;
            CheckPartitionKey(partitionKey, id);
            if (!_documents.TryGetValue(id, out JsonObject? current))
            {
                return new ResponseMessage(HttpStatusCode.NotFound, errorMessage: "Resource Not Found.");
            }

            if (ConcurrentWritesBeforeReplace > 0)
            {
                // Another writer got in first: the stored document gets a new ETag.
                ConcurrentWritesBeforeReplace--;
                current["_etag"] = NextETag();
            }

            string? ifMatch = requestOptions?.IfMatchEtag;
            if (ifMatch is not null && !string.Equals(ifMatch, current["_etag"]!.GetValue<string>(), StringComparison.Ordinal))
            {
                return new ResponseMessage(HttpStatusCode.PreconditionFailed, errorMessage: "One of the specified pre-condition is not met.");
            }

            Store(document);
            return Respond(HttpStatusCode.OK, id, requestOptions, isWrite: true);
        }
    }

    public override FeedIterator GetItemQueryStreamIterator(QueryDefinition queryDefinition, string? continuationToken = null, QueryRequestOptions? requestOptions = null) =>
        new PageIterator(this, continuationToken, requestOptions?.MaxItemCount);

    public override FeedIterator GetItemQueryStreamIterator(string? queryText = null, string? continuationToken = null, QueryRequestOptions? requestOptions = null) =>
        new PageIterator(this, continuationToken, requestOptions?.MaxItemCount);

    private static async Task<JsonObject> ReadBodyAsync(Stream stream, CancellationToken cancellationToken)
    {
        using var copy = new MemoryStream();
        await stream.CopyToAsync(copy, cancellationToken);
        return JsonNode.Parse(copy.ToArray())!.AsObject();
    }

    private static void CheckPartitionKey(PartitionKey partitionKey, string documentId)
    {
        // The DEK container is partitioned by /id: a request must carry the document id as its partition key.
        Assert.Equal(new PartitionKey(documentId), partitionKey);
    }

    private string NextETag() => $"\"{++_etagCounter:x8}-0000-0000-0000-000000000000\"";

    private string Store(JsonObject document)
    {
        string documentId = document["id"]!.GetValue<string>();
        WrittenBodies.Add(document.ToJsonString());
        JsonObject stored = (JsonObject)document.DeepClone();
        stored["_rid"] = Convert.ToBase64String(Encoding.UTF8.GetBytes(documentId));
        stored["_self"] = $"dbs/x/colls/{Id}/docs/{documentId}";
        stored["_etag"] = NextETag();
        stored["_ts"] = 1_790_000_000 + _etagCounter;
        _documents[documentId] = stored;
        return stored["_etag"]!.GetValue<string>();
    }

    private ResponseMessage Respond(HttpStatusCode status, string documentId, ItemRequestOptions? requestOptions, bool isWrite)
    {
        JsonObject document = _documents[documentId];
        var response = new ResponseMessage(status);
        response.Headers["etag"] = document["_etag"]!.GetValue<string>();
        response.Headers["x-ms-request-charge"] = "1.0";
        // Like Cosmos: a write with EnableContentResponseOnWrite = false answers with headers only.
        if (!(isWrite && requestOptions?.EnableContentResponseOnWrite == false))
        {
            response.Content = new MemoryStream(Encoding.UTF8.GetBytes(document.ToJsonString()));
        }

        return response;
    }

    /// <summary>Pages over all documents in id order; the query text is not evaluated.</summary>
    private sealed class PageIterator(FakeContainer container, string? continuationToken, int? maxItemCount) : FeedIterator
    {
        private int _next = continuationToken is null ? 0 : int.Parse(continuationToken, CultureInfo.InvariantCulture);
        private bool _done;

        public override bool HasMoreResults => !_done;

        public override Task<ResponseMessage> ReadNextAsync(CancellationToken cancellationToken = default)
        {
            List<JsonObject> all;
            lock (container._gate)
            {
                all = container._documents.OrderBy(pair => pair.Key, StringComparer.Ordinal).Select(pair => (JsonObject)pair.Value.DeepClone()).ToList();
            }

            int take = Math.Min(maxItemCount is > 0 ? maxItemCount.Value : int.MaxValue, all.Count - _next);
            var page = new JsonArray(all.Skip(_next).Take(take).Cast<JsonNode>().ToArray());
            _next += take;
            _done = _next >= all.Count;
            var body = new JsonObject { ["_rid"] = "fake", ["Documents"] = page, ["_count"] = take };
            var response = new ResponseMessage(HttpStatusCode.OK) { Content = new MemoryStream(Encoding.UTF8.GetBytes(body.ToJsonString())) };
            if (!_done)
            {
                response.Headers["x-ms-continuation"] = _next.ToString(CultureInfo.InvariantCulture);
            }

            return Task.FromResult(response);
        }
    }
}
