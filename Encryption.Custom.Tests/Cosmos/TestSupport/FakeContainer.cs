using System.Collections.Concurrent;
using System.Net;
using System.Text;
using System.Text.Json.Nodes;
using Encryption.Custom.Cosmos.Serialization;
using Encryption.Custom.Performance.Tests.Cosmos;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos.TestSupport;

/// <summary>
/// The unit tests' one in-memory <see cref="Container"/>, for tests at the seam between the library and the SDK: the
/// encryption container's point operations, patch and transactional batches (FakeContainer.Batch.cs), and the key
/// layer's DEK container (stream reads and writes, queries paged over every document: FakeContainer.Query.cs). It
/// behaves as Cosmos does where the library depends on it: documents keyed by partition key and id, ETags and
/// 404/409/412, the system properties Cosmos adds (<c>_rid</c>, <c>_self</c>, <c>_etag</c>, <c>_ts</c>), no body
/// for a write with <c>EnableContentResponseOnWrite = false</c>. It records what it receives; every other member
/// throws (<see cref="UnsupportedContainer"/>). Its <see cref="Database"/> is that of a real, never-connected
/// client (for the response factory).
/// </summary>
public sealed partial class FakeContainer : UnsupportedContainer
{
    private static readonly CosmosClient s_client = new(
        "https://localhost:8081/",
        "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==");

    private static readonly CosmosSerializer s_serializer = new NewtonsoftItemSerializer(null);

    private readonly ConcurrentDictionary<(string PartitionKey, string Id), Stored> _items = new();
    private readonly object _lock = new();
    private int _etagCounter;

    /// <param name="id">The container's id.</param>
    /// <param name="partitionKeyPath">Its partition key path, as <see cref="ReadContainerAsync"/> reports it (a DEK container's is <c>/id</c>).</param>
    /// <param name="client">The client whose database <see cref="Database"/> returns.</param>
    public FakeContainer(string id = "fake", string partitionKeyPath = "/pk", CosmosClient? client = null)
    {
        Id = id;
        PartitionKeyPath = partitionKeyPath;
        Client = client ?? s_client;
    }

    public string PartitionKeyPath { get; }

    public CosmosClient Client { get; }

    /// <summary>Bodies received by create, replace and upsert (point and batch), in order.</summary>
    public ConcurrentQueue<JObject> ReceivedBodies { get; } = new();

    /// <summary>Patch operations received (point and batch), with the ETag condition they carried.</summary>
    public ConcurrentQueue<(IReadOnlyList<PatchOperation> Operations, string? IfMatch)> ReceivedPatches { get; } = new();

    /// <summary>Batches executed (one entry per execution: the operation kinds).</summary>
    public ConcurrentQueue<IReadOnlyList<string>> ExecutedBatches { get; } = new();

    /// <summary>Runs before each patch is applied (point or batch), for tests that change the document meanwhile.</summary>
    public Action<string>? BeforePatch { get; set; }

    /// <summary>Alters the body of a successful point write's answer (create, replace, upsert, patch) after the write was stored: an answer damaged in transit.</summary>
    public Func<JObject, JObject>? AlterWriteAnswer { get; set; }

    /// <summary>How many of the next point replaces find the document changed by "another writer" first (a new ETag, so an If-Match fails with 412).</summary>
    public int ConcurrentWritesBeforeReplace { get; set; }

    public int ReadContainerCount { get; private set; }

    public int ReadItemCount { get; private set; }

    public int ReplaceCount { get; private set; }

    public override string Id { get; }

    public override Database Database => Client.GetDatabase("db");

    public static string Key(PartitionKey partitionKey) => partitionKey.ToString();

    /// <summary>The stored document (a copy), or null.</summary>
    public JObject? Get(string id, PartitionKey partitionKey) =>
        _items.TryGetValue((Key(partitionKey), id), out Stored? stored) ? (JObject)stored.Document.DeepClone() : null;

    /// <summary>The stored document with this id in a container partitioned by <c>/id</c> (a DEK container), as System.Text.Json nodes; or null.</summary>
    public JsonObject? GetDocument(string id) => Get(id, new PartitionKey(id)) is { } document ? JsonNode.Parse(document.ToString())!.AsObject() : null;

    /// <summary>Stores a document directly (as another writer would).</summary>
    /// <returns>Its ETag.</returns>
    public string Put(JObject document, PartitionKey partitionKey)
    {
        lock (_lock)
        {
            Stored stored = NewStored(document, Key(partitionKey));
            _items[(Key(partitionKey), (string)document["id"]!)] = stored;
            return stored.Etag;
        }
    }

    /// <summary>Stores a document given as JSON in a container partitioned by <c>/id</c>, as another library or process would have written it.</summary>
    /// <returns>Its ETag.</returns>
    public string Seed(string json)
    {
        var document = JObject.Parse(json);
        return Put(document, new PartitionKey((string)document["id"]!));
    }

    public override Task<ContainerResponse> ReadContainerAsync(ContainerRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        ReadContainerCount++;
        return Task.FromResult<ContainerResponse>(new FakeContainerResponse(new ContainerProperties(Id, PartitionKeyPath), this, HttpStatusCode.OK));
    }

    public override async Task<ResponseMessage> CreateItemStreamAsync(Stream streamPayload, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        Write("create", await ParseAsync(streamPayload, cancellationToken), null, partitionKey, requestOptions);

    public override async Task<ResponseMessage> ReplaceItemStreamAsync(Stream streamPayload, string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        Write("replace", await ParseAsync(streamPayload, cancellationToken), id, partitionKey, requestOptions);

    public override async Task<ResponseMessage> UpsertItemStreamAsync(Stream streamPayload, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        Write("upsert", await ParseAsync(streamPayload, cancellationToken), null, partitionKey, requestOptions);

    public override Task<ResponseMessage> ReadItemStreamAsync(string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        lock (_lock)
        {
            ReadItemCount++;
            return Task.FromResult(_items.TryGetValue((Key(partitionKey), id), out Stored? stored)
                ? Respond(HttpStatusCode.OK, stored.Document, stored.Etag)
                : Refuse(HttpStatusCode.NotFound));
        }
    }

    public override Task<ResponseMessage> DeleteItemStreamAsync(string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        Task.FromResult(_items.TryRemove((Key(partitionKey), id), out _) ? new ResponseMessage(HttpStatusCode.NoContent) : Refuse(HttpStatusCode.NotFound));

    private ResponseMessage Write(string kind, JObject body, string? id, PartitionKey partitionKey, ItemRequestOptions? requestOptions)
    {
        ReceivedBodies.Enqueue((JObject)body.DeepClone());
        lock (_lock)
        {
            string key = Key(partitionKey);
            if (kind == "replace")
            {
                ReplaceCount++;
                if (ConcurrentWritesBeforeReplace > 0 && id is not null && _items.TryGetValue((key, id), out Stored? current))
                {
                    // Another writer got in first: the stored document gets a new ETag.
                    ConcurrentWritesBeforeReplace--;
                    _items[(key, id)] = NewStored(current.Document, key);
                }
            }

            var items = new Dictionary<(string, string), Stored>(_items);
            (HttpStatusCode status, Stored? stored) = WriteCore(items, kind, body, id, key, requestOptions?.IfMatchEtag);
            if (stored is null)
            {
                return Refuse(status);
            }

            _items[(key, (string)stored.Document["id"]!)] = stored;
            if (requestOptions?.EnableContentResponseOnWrite == false)
            {
                // Like Cosmos: such a write answers with headers only.
                return Respond(status, null, stored.Etag);
            }

            return Respond(status, AlterWriteAnswer?.Invoke((JObject)stored.Document.DeepClone()) ?? stored.Document, stored.Etag);
        }
    }

    private (HttpStatusCode, Stored?) WriteCore(Dictionary<(string, string), Stored> items, string kind, JObject body, string? id, string key, string? ifMatch)
    {
        string documentId = (string)body["id"]!;
        bool exists = items.TryGetValue((key, documentId), out Stored? existing);
        if (kind == "create" && exists)
        {
            return (HttpStatusCode.Conflict, null);
        }

        if (kind == "replace" && (!exists || (id is not null && id != documentId)))
        {
            return (HttpStatusCode.NotFound, null);
        }

        if (ifMatch is not null && (!exists || existing!.Etag != ifMatch))
        {
            return (HttpStatusCode.PreconditionFailed, null);
        }

        Stored result = NewStored(body, key);
        items[(key, documentId)] = result;
        return (exists ? HttpStatusCode.OK : HttpStatusCode.Created, result);
    }

    // A copy of the document with the system properties Cosmos adds to every stored document, and a new ETag.
    private Stored NewStored(JObject document, string partitionKey)
    {
        int version = Interlocked.Increment(ref _etagCounter);
        string etag = "\"" + version.ToString(System.Globalization.CultureInfo.InvariantCulture) + "\"";
        var stored = (JObject)document.DeepClone();
        string id = (string)stored["id"]!;
        stored["_rid"] = Convert.ToBase64String(Encoding.UTF8.GetBytes(partitionKey + "/" + id));
        stored["_self"] = $"dbs/db/colls/{Id}/docs/{id}/";
        stored["_etag"] = etag;
        stored["_ts"] = 1_790_000_000 + version;
        return new Stored(stored, etag);
    }

    private static async Task<JObject> ParseAsync(Stream stream, CancellationToken cancellationToken)
    {
        using var copy = new MemoryStream();
        await stream.CopyToAsync(copy, cancellationToken);
        copy.Position = 0;
        return Parse(copy);
    }

    internal static JObject Parse(Stream stream)
    {
        using var reader = new StreamReader(stream, Encoding.UTF8, leaveOpen: true);
        return JObject.Parse(reader.ReadToEnd());
    }

    internal static ResponseMessage Respond(HttpStatusCode status, JObject? body, string etag)
    {
        var response = new ResponseMessage(status);
        if (body is not null)
        {
            response.Content = new MemoryStream(Encoding.UTF8.GetBytes(body.ToString(Newtonsoft.Json.Formatting.None)));
        }

        response.Headers.Add("etag", etag);
        response.Headers.Add("x-ms-request-charge", "6.29");
        return response;
    }

    // A refusal with the message Cosmos gives for it.
    private static ResponseMessage Refuse(HttpStatusCode status) => new(status, errorMessage: status switch
    {
        HttpStatusCode.NotFound => "Resource Not Found.",
        HttpStatusCode.Conflict => "Entity with the specified id already exists in the system.",
        HttpStatusCode.PreconditionFailed => "One of the specified pre-condition is not met.",
        _ => status.ToString(),
    });

    public sealed record Stored(JObject Document, string Etag);

    internal sealed class FakeContainerResponse(ContainerProperties properties, Container container, HttpStatusCode status) : ContainerResponse
    {
        public override ContainerProperties Resource => properties;

        public override Container Container => container;

        public override HttpStatusCode StatusCode => status;
    }
}
