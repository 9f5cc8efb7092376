using System.Net;
using System.Text;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos.TestSupport;

/// <summary>A transactional batch of <see cref="FakeContainer"/>: records operations, applies them all or nothing.</summary>
public sealed class FakeTransactionalBatch(FakeContainer container, PartitionKey partitionKey) : TransactionalBatch
{
    private readonly List<Operation> _operations = [];

    public sealed record Operation(string Kind, string? Id, JObject? Body, IReadOnlyList<PatchOperation>? Patch, string? IfMatch);

    public override TransactionalBatch CreateItem<T>(T item, TransactionalBatchItemRequestOptions? requestOptions = null) => throw new NotSupportedException("The encryption batch sends streams.");

    public override TransactionalBatch CreateItemStream(Stream streamPayload, TransactionalBatchItemRequestOptions? requestOptions = null) =>
        Add(new Operation("create", null, FakeContainer.Parse(streamPayload), null, requestOptions?.IfMatchEtag));

    public override TransactionalBatch ReadItem(string id, TransactionalBatchItemRequestOptions? requestOptions = null) =>
        Add(new Operation("read", id, null, null, requestOptions?.IfMatchEtag));

    public override TransactionalBatch UpsertItem<T>(T item, TransactionalBatchItemRequestOptions? requestOptions = null) => throw new NotSupportedException("The encryption batch sends streams.");

    public override TransactionalBatch UpsertItemStream(Stream streamPayload, TransactionalBatchItemRequestOptions? requestOptions = null) =>
        Add(new Operation("upsert", null, FakeContainer.Parse(streamPayload), null, requestOptions?.IfMatchEtag));

    public override TransactionalBatch ReplaceItem<T>(string id, T item, TransactionalBatchItemRequestOptions? requestOptions = null) => throw new NotSupportedException("The encryption batch sends streams.");

    public override TransactionalBatch ReplaceItemStream(string id, Stream streamPayload, TransactionalBatchItemRequestOptions? requestOptions = null) =>
        Add(new Operation("replace", id, FakeContainer.Parse(streamPayload), null, requestOptions?.IfMatchEtag));

    public override TransactionalBatch DeleteItem(string id, TransactionalBatchItemRequestOptions? requestOptions = null) =>
        Add(new Operation("delete", id, null, null, requestOptions?.IfMatchEtag));

    public override TransactionalBatch PatchItem(string id, IReadOnlyList<PatchOperation> patchOperations, TransactionalBatchPatchItemRequestOptions? requestOptions = null) =>
        Add(new Operation("patch", id, null, patchOperations, requestOptions?.IfMatchEtag));

    public override Task<TransactionalBatchResponse> ExecuteAsync(CancellationToken cancellationToken = default) => ExecuteAsync(null, cancellationToken);

    public override Task<TransactionalBatchResponse> ExecuteAsync(TransactionalBatchRequestOptions? requestOptions, CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        (HttpStatusCode status, _) = container.ExecuteBatch(partitionKey, _operations, out List<(HttpStatusCode, JObject?, string?)> results);

        // A write's result passes through the container's answer hook (the stored document stays as committed).
        return Task.FromResult<TransactionalBatchResponse>(new FakeBatchResponse(status, [.. results.Select((r, i) => new FakeResult(
            r.Item1,
            r.Item2 is { } body && _operations[i].Kind != "read" && container.AlterWriteAnswer is { } alter ? alter((JObject)body.DeepClone()) : r.Item2,
            r.Item3))]));
    }

    private FakeTransactionalBatch Add(Operation operation)
    {
        _operations.Add(operation);
        return this;
    }

    public sealed class FakeBatchResponse(HttpStatusCode status, List<TransactionalBatchOperationResult> results) : TransactionalBatchResponse
    {
        public bool Disposed { get; private set; }

        public override HttpStatusCode StatusCode => status;

        public override bool IsSuccessStatusCode => (int)status is >= 200 and < 300;

        public override double RequestCharge => 6.29 * results.Count;

        public override int Count => results.Count;

        public override TransactionalBatchOperationResult this[int index] => results[index];

        public override IEnumerator<TransactionalBatchOperationResult> GetEnumerator() => results.GetEnumerator();

        protected override void Dispose(bool disposing)
        {
            Disposed = true;
            base.Dispose(disposing);
        }
    }

    public sealed class FakeResult(HttpStatusCode status, JObject? body, string? etag) : TransactionalBatchOperationResult
    {
        public override HttpStatusCode StatusCode => status;

        public override bool IsSuccessStatusCode => (int)status is >= 200 and < 300;

        public override string ETag => etag!;

        private readonly Stream? _resource = body is null ? null : new MemoryStream(Encoding.UTF8.GetBytes(body.ToString(Newtonsoft.Json.Formatting.None)));

        public override Stream? ResourceStream => _resource;
    }
}
