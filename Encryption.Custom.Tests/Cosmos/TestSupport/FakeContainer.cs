using System.Collections.Concurrent;
using System.Net;
using System.Text;
using Encryption.Custom.Cosmos.Serialization;
using Encryption.Custom.Performance.Tests.Cosmos;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos.TestSupport;

/// <summary>
/// An in-memory <see cref="Container"/> for unit tests of the encryption container at its seam: point operations,
/// patch (set, add, replace, remove, increment, with ETag conditions) and transactional batches, recording what
/// it receives. Its <see cref="Database"/> is that of a real, never-connected client (for the response factory).
/// </summary>
public sealed class FakeContainer : UnsupportedContainer
{
    private static readonly CosmosClient s_client = new(
        "https://localhost:8081/",
        "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==");

    private static readonly CosmosSerializer s_serializer = new NewtonsoftItemSerializer(null);

    private readonly ConcurrentDictionary<(string PartitionKey, string Id), Stored> _items = new();
    private readonly object _lock = new();
    private int _etagCounter;

    public FakeContainer(string partitionKeyPath = "/pk", CosmosClient? client = null)
    {
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

    public int ReadContainerCount { get; private set; }

    public int ReadItemCount { get; private set; }

    public override string Id => "fake";

    public override Database Database => Client.GetDatabase("db");

    public static string Key(PartitionKey partitionKey) => partitionKey.ToString();

    /// <summary>The stored document (a copy), or null.</summary>
    public JObject? Get(string id, PartitionKey partitionKey) =>
        _items.TryGetValue((Key(partitionKey), id), out Stored? stored) ? (JObject)stored.Document.DeepClone() : null;

    /// <summary>Stores a document directly (as another writer would).</summary>
    public string Put(JObject document, PartitionKey partitionKey)
    {
        lock (_lock)
        {
            string etag = NextEtag();
            JObject copy = (JObject)document.DeepClone();
            copy["_etag"] = etag;
            _items[(Key(partitionKey), (string)copy["id"]!)] = new Stored(copy, etag);
            return etag;
        }
    }

    public override Task<ContainerResponse> ReadContainerAsync(ContainerRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        ReadContainerCount++;
        return Task.FromResult<ContainerResponse>(new FakeContainerResponse(new ContainerProperties(Id, PartitionKeyPath), this));
    }

    public override Task<ResponseMessage> CreateItemStreamAsync(Stream streamPayload, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        Task.FromResult(Write("create", Parse(streamPayload), null, partitionKey, requestOptions?.IfMatchEtag));

    public override Task<ResponseMessage> ReplaceItemStreamAsync(Stream streamPayload, string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        Task.FromResult(Write("replace", Parse(streamPayload), id, partitionKey, requestOptions?.IfMatchEtag));

    public override Task<ResponseMessage> UpsertItemStreamAsync(Stream streamPayload, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        Task.FromResult(Write("upsert", Parse(streamPayload), null, partitionKey, requestOptions?.IfMatchEtag));

    public override Task<ResponseMessage> ReadItemStreamAsync(string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        ReadItemCount++;
        return Task.FromResult(_items.TryGetValue((Key(partitionKey), id), out Stored? stored)
            ? Respond(HttpStatusCode.OK, stored.Document, stored.Etag)
            : new ResponseMessage(HttpStatusCode.NotFound));
    }

    public override Task<ResponseMessage> DeleteItemStreamAsync(string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        Task.FromResult(new ResponseMessage(_items.TryRemove((Key(partitionKey), id), out _) ? HttpStatusCode.NoContent : HttpStatusCode.NotFound));

    public override Task<ResponseMessage> PatchItemStreamAsync(string id, PartitionKey partitionKey, IReadOnlyList<PatchOperation> patchOperations, PatchItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        ReceivedPatches.Enqueue((patchOperations, requestOptions?.IfMatchEtag));
        BeforePatch?.Invoke(id);
        lock (_lock)
        {
            (HttpStatusCode status, Stored? result) = ApplyPatch(_items, id, partitionKey, patchOperations, requestOptions?.IfMatchEtag);
            return Task.FromResult(result is null ? new ResponseMessage(status) : Respond(status, AlterWriteAnswer?.Invoke((JObject)result.Document.DeepClone()) ?? result.Document, result.Etag));
        }
    }

    public override TransactionalBatch CreateTransactionalBatch(PartitionKey partitionKey) => new FakeTransactionalBatch(this, partitionKey);

    internal (HttpStatusCode Status, JObject? Body) ExecuteBatch(PartitionKey partitionKey, IReadOnlyList<FakeTransactionalBatch.Operation> operations, out List<(HttpStatusCode, JObject?, string?)> results)
    {
        ExecutedBatches.Enqueue([.. operations.Select(o => o.Kind)]);
        foreach (FakeTransactionalBatch.Operation operation in operations.Where(o => o.Kind == "patch"))
        {
            ReceivedPatches.Enqueue((operation.Patch!, operation.IfMatch));
            BeforePatch?.Invoke(operation.Id!);
        }

        lock (_lock)
        {
            // All or nothing: work on a copy and commit it only if every operation succeeded.
            var copy = new Dictionary<(string, string), Stored>(_items);
            results = [];
            bool failed = false;
            foreach (FakeTransactionalBatch.Operation operation in operations)
            {
                if (failed)
                {
                    results.Add((HttpStatusCode.FailedDependency, null, null));
                    continue;
                }

                (HttpStatusCode status, Stored? stored) = ApplyBatchOperation(copy, partitionKey, operation);
                results.Add((status, stored?.Document, stored?.Etag));
                failed = (int)status >= 400;
            }

            if (failed)
            {
                for (int i = 0; i < results.Count; i++)
                {
                    if ((int)results[i].Item1 < 400)
                    {
                        results[i] = (HttpStatusCode.FailedDependency, null, null);
                    }
                }

                return (results.First(r => r.Item1 != HttpStatusCode.FailedDependency).Item1, null);
            }

            _items.Clear();
            foreach (KeyValuePair<(string, string), Stored> item in copy)
            {
                _items[item.Key] = item.Value;
            }

            return (HttpStatusCode.OK, null);
        }
    }

    private (HttpStatusCode, Stored?) ApplyBatchOperation(Dictionary<(string, string), Stored> items, PartitionKey partitionKey, FakeTransactionalBatch.Operation operation)
    {
        string key = Key(partitionKey);
        switch (operation.Kind)
        {
            case "read":
                return items.TryGetValue((key, operation.Id!), out Stored? read) ? (HttpStatusCode.OK, read) : (HttpStatusCode.NotFound, null);
            case "delete":
                return items.Remove((key, operation.Id!)) ? (HttpStatusCode.NoContent, null) : (HttpStatusCode.NotFound, null);
            case "patch":
                return ApplyPatch(items, operation.Id!, partitionKey, operation.Patch!, operation.IfMatch);
            default:
                ReceivedBodies.Enqueue((JObject)operation.Body!.DeepClone());
                return WriteCore(items, operation.Kind, operation.Body!, operation.Id, key, operation.IfMatch);
        }
    }

    private ResponseMessage Write(string kind, JObject body, string? id, PartitionKey partitionKey, string? ifMatch)
    {
        ReceivedBodies.Enqueue((JObject)body.DeepClone());
        lock (_lock)
        {
            var items = new Dictionary<(string, string), Stored>(_items);
            (HttpStatusCode status, Stored? stored) = WriteCore(items, kind, body, id, Key(partitionKey), ifMatch);
            if (stored is null)
            {
                return new ResponseMessage(status);
            }

            _items[(Key(partitionKey), (string)stored.Document["id"]!)] = stored;
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

        string etag = NextEtag();
        JObject stored = (JObject)body.DeepClone();
        stored["_etag"] = etag;
        var result = new Stored(stored, etag);
        items[(key, documentId)] = result;
        return (exists ? HttpStatusCode.OK : HttpStatusCode.Created, result);
    }

    private (HttpStatusCode, Stored?) ApplyPatch(IDictionary<(string, string), Stored> items, string id, PartitionKey partitionKey, IReadOnlyList<PatchOperation> operations, string? ifMatch)
    {
        if (!items.TryGetValue((Key(partitionKey), id), out Stored? stored))
        {
            return (HttpStatusCode.NotFound, null);
        }

        if (ifMatch is not null && ifMatch != stored.Etag)
        {
            return (HttpStatusCode.PreconditionFailed, null);
        }

        JObject document = (JObject)stored.Document.DeepClone();
        foreach (PatchOperation operation in operations)
        {
            string[] segments = operation.Path[1..].Split('/');
            JToken parent = document;
            foreach (string segment in segments[..^1])
            {
                parent = parent[segment] ?? throw new InvalidOperationException("Missing parent in fake patch.");
            }

            string name = segments[^1];
            JToken? value = null;
            if (operation.TrySerializeValueParameter(s_serializer, out Stream? valueStream) && valueStream is not null)
            {
                using var reader = new StreamReader(valueStream);
                value = JToken.Parse(reader.ReadToEnd());
            }

            switch (operation.OperationType)
            {
                case PatchOperationType.Remove:
                    ((JObject)parent).Remove(name);
                    break;
                case PatchOperationType.Increment:
                    parent[name] = (parent[name]?.Value<double>() ?? 0) + value!.Value<double>();
                    break;
                default:
                    parent[name] = value;
                    break;
            }
        }

        string etag = NextEtag();
        document["_etag"] = etag;
        var patched = new Stored(document, etag);
        items[(Key(partitionKey), id)] = patched;
        return (HttpStatusCode.OK, patched);
    }

    private string NextEtag() => "\"" + Interlocked.Increment(ref _etagCounter).ToString(System.Globalization.CultureInfo.InvariantCulture) + "\"";

    internal static JObject Parse(Stream stream)
    {
        using var reader = new StreamReader(stream, Encoding.UTF8, leaveOpen: true);
        return JObject.Parse(reader.ReadToEnd());
    }

    internal static ResponseMessage Respond(HttpStatusCode status, JObject body, string etag)
    {
        var response = new ResponseMessage(status) { Content = new MemoryStream(Encoding.UTF8.GetBytes(body.ToString(Newtonsoft.Json.Formatting.None))) };
        response.Headers.Add("etag", etag);
        response.Headers.Add("x-ms-request-charge", "6.29");
        return response;
    }

    public sealed record Stored(JObject Document, string Etag);

    private sealed class FakeContainerResponse(ContainerProperties properties, Container container) : ContainerResponse
    {
        public override ContainerProperties Resource => properties;

        public override Container Container => container;

        public override HttpStatusCode StatusCode => HttpStatusCode.OK;
    }
}
