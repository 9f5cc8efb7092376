using System.Net;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos.TestSupport;

/// <summary>The fake container's patch (point and batch) and transactional batches, applied all or nothing.</summary>
public sealed partial class FakeContainer
{
    public override Task<ResponseMessage> PatchItemStreamAsync(string id, PartitionKey partitionKey, IReadOnlyList<PatchOperation> patchOperations, PatchItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        ReceivedPatches.Enqueue((patchOperations, requestOptions?.IfMatchEtag));
        BeforePatch?.Invoke(id);
        lock (_lock)
        {
            (HttpStatusCode status, Stored? result) = ApplyPatch(_items, id, partitionKey, patchOperations, requestOptions?.IfMatchEtag);
            return Task.FromResult(result is null ? Refuse(status) : Respond(status, AlterWriteAnswer?.Invoke((JObject)result.Document.DeepClone()) ?? result.Document, result.Etag));
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

        Stored patched = NewStored(document, Key(partitionKey));
        items[(Key(partitionKey), id)] = patched;
        return (HttpStatusCode.OK, patched);
    }
}
