using System.Net;
using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys.Cosmos;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Batch;

/// <summary>
/// A transactional batch of an encryption container. Operations are recorded and the batch is built when it
/// executes: create, replace and upsert bodies are encrypted once (as their options ask), patches are rewritten
/// against the stored document's metadata (read first, unless an earlier operation of the batch writes that
/// document) and made conditional on its ETag, and every result body is decrypted. A batch that fails only because
/// such a document changed meanwhile is executed again (it committed nothing), up to
/// <see cref="EncryptionContainerOptions.PatchMaxAttempts"/> times, with the same encrypted bodies.
/// </summary>
internal sealed partial class EncryptionTransactionalBatch : TransactionalBatch
{
    private readonly EncryptionContainer _container;
    private readonly PartitionKey _partitionKey;
    private PartitionKey _storedPartitionKey;
    private readonly int _maxAttempts;
    private readonly List<BatchOperation> _operations = [];

    public EncryptionTransactionalBatch(EncryptionContainer container, PartitionKey partitionKey, int maxAttempts)
    {
        _container = container;
        _partitionKey = partitionKey;
        _maxAttempts = maxAttempts;
    }

    public override TransactionalBatch CreateItem<T>(T item, TransactionalBatchItemRequestOptions? requestOptions = null)
    {
        ArgumentNullException.ThrowIfNull(item);
        return Add(new BatchOperation(BatchOperationKind.Create, null, requestOptions) { Serialize = serializer => serializer.ToStream(item) });
    }

    public override TransactionalBatch CreateItemStream(Stream streamPayload, TransactionalBatchItemRequestOptions? requestOptions = null)
    {
        ArgumentNullException.ThrowIfNull(streamPayload);
        return Add(new BatchOperation(BatchOperationKind.Create, null, requestOptions) { Stream = streamPayload });
    }

    public override TransactionalBatch ReadItem(string id, TransactionalBatchItemRequestOptions? requestOptions = null)
    {
        ArgumentNullException.ThrowIfNull(id);
        return Add(new BatchOperation(BatchOperationKind.Read, id, requestOptions));
    }

    public override TransactionalBatch UpsertItem<T>(T item, TransactionalBatchItemRequestOptions? requestOptions = null)
    {
        ArgumentNullException.ThrowIfNull(item);
        return Add(new BatchOperation(BatchOperationKind.Upsert, null, requestOptions) { Serialize = serializer => serializer.ToStream(item) });
    }

    public override TransactionalBatch UpsertItemStream(Stream streamPayload, TransactionalBatchItemRequestOptions? requestOptions = null)
    {
        ArgumentNullException.ThrowIfNull(streamPayload);
        return Add(new BatchOperation(BatchOperationKind.Upsert, null, requestOptions) { Stream = streamPayload });
    }

    public override TransactionalBatch ReplaceItem<T>(string id, T item, TransactionalBatchItemRequestOptions? requestOptions = null)
    {
        ArgumentNullException.ThrowIfNull(id);
        ArgumentNullException.ThrowIfNull(item);
        return Add(new BatchOperation(BatchOperationKind.Replace, id, requestOptions) { Serialize = serializer => serializer.ToStream(item) });
    }

    public override TransactionalBatch ReplaceItemStream(string id, Stream streamPayload, TransactionalBatchItemRequestOptions? requestOptions = null)
    {
        ArgumentNullException.ThrowIfNull(id);
        ArgumentNullException.ThrowIfNull(streamPayload);
        return Add(new BatchOperation(BatchOperationKind.Replace, id, requestOptions) { Stream = streamPayload });
    }

    public override TransactionalBatch DeleteItem(string id, TransactionalBatchItemRequestOptions? requestOptions = null)
    {
        ArgumentNullException.ThrowIfNull(id);
        return Add(new BatchOperation(BatchOperationKind.Delete, id, requestOptions));
    }

    public override TransactionalBatch PatchItem(string id, IReadOnlyList<PatchOperation> patchOperations, TransactionalBatchPatchItemRequestOptions? requestOptions = null)
    {
        ArgumentNullException.ThrowIfNull(id);
        ArgumentNullException.ThrowIfNull(patchOperations);
        return Add(new BatchOperation(BatchOperationKind.Patch, id, requestOptions) { PatchOperations = patchOperations });
    }

    public override Task<TransactionalBatchResponse> ExecuteAsync(CancellationToken cancellationToken = default) =>
        ExecuteAsync(null, cancellationToken);

    public override async Task<TransactionalBatchResponse> ExecuteAsync(TransactionalBatchRequestOptions? requestOptions, CancellationToken cancellationToken = default)
    {
        using OperationTelemetry? telemetry = OperationTelemetry.Start(OperationNames.TransactionalBatchExecute, _container.Id);
        try
        {
            return await ExecuteCoreAsync(requestOptions, telemetry, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
        {
            throw;
        }
        finally
        {
            foreach (BatchOperation operation in _operations)
            {
                operation.Body?.Dispose();
                operation.Body = null;
            }
        }
    }

    private EncryptionTransactionalBatch Add(BatchOperation operation)
    {
        _operations.Add(operation);
        return this;
    }

    private async Task<TransactionalBatchResponse> ExecuteCoreAsync(TransactionalBatchRequestOptions? requestOptions, OperationTelemetry? telemetry, CancellationToken cancellationToken)
    {
        // The stored id and key of every operation (LookupKeys: encrypted when the policy encrypts them).
        _storedPartitionKey = await _container.Lookups.EncryptAsync(_partitionKey, cancellationToken).ConfigureAwait(false);
        foreach (BatchOperation operation in _operations)
        {
            operation.Id = operation.RequestedId is null ? null : await _container.Lookups.EncryptIdAsync(operation.RequestedId, cancellationToken).ConfigureAwait(false);
        }

        // Everything that can be refused locally is refused before anything is read or sent.
        foreach (BatchOperation operation in _operations)
        {
            if (operation.Kind == BatchOperationKind.Patch)
            {
                EncryptionOptions? requested = _container.WriteOptions.Resolve(EncryptionRequestOptionsExtensions.GetAttachedEncryptionOptions(operation.Options));
                // Classified as a single patch is, by the same code.
                operation.PatchPlan = PatchPlan.Create(operation.PatchOperations!, requested, await _container.GetPatchSelectorsAsync(requested, cancellationToken).ConfigureAwait(false));

                if (requested is not null)
                {
                    await _container.PartitionKeyGuard.CheckAsync(requested, cancellationToken).ConfigureAwait(false);
                }
            }
            else if (operation.HasBody)
            {
                operation.EncryptionOptions = _container.WriteOptions.Resolve(operation.RequestedEncryptionOptions);
                if (operation.EncryptionOptions is { } options)
                {
                    await _container.PartitionKeyGuard.CheckAsync(options, cancellationToken).ConfigureAwait(false);
                }
            }
        }

        await PrepareBodiesAsync(requestOptions, telemetry, cancellationToken).ConfigureAwait(false);
        bool hasPatches = _operations.Exists(static o => o.Kind == BatchOperationKind.Patch);
        for (int attempt = 1; ; attempt++)
        {
            if (hasPatches)
            {
                await PreparePatchesAsync(telemetry, cancellationToken).ConfigureAwait(false);
            }

            TransactionalBatch inner = _container.Inner.CreateTransactionalBatch(_storedPartitionKey);
            foreach (BatchOperation operation in _operations)
            {
                AddTo(inner, operation);
            }

            TransactionalBatchResponse response = await inner.ExecuteAsync(requestOptions, cancellationToken).ConfigureAwait(false);
            telemetry?.SetStatusCode(response.StatusCode);
            if (!response.IsSuccessStatusCode && attempt < _maxAttempts && FailedOnContainerCondition(response))
            {
                // A patched document changed after its metadata was read; the batch committed nothing.
                response.Dispose();
                continue;
            }

            bool hasWrites = _operations.Exists(static o => o.Kind != BatchOperationKind.Read);
            return await EncryptionTransactionalBatchResponse.CreateAsync(response, _container, hasWrites, telemetry, cancellationToken).ConfigureAwait(false);
        }
    }

    private async Task PrepareBodiesAsync(TransactionalBatchRequestOptions? requestOptions, OperationTelemetry? telemetry, CancellationToken cancellationToken)
    {
        bool recycle = _container.CanRecycleBody(requestOptions);
        foreach (BatchOperation operation in _operations)
        {
            if (!operation.HasBody)
            {
                continue;
            }

            Stream source = operation.Stream ?? operation.Serialize!(_container.Serializer);
            try
            {
                EncryptionOptions? encryption = operation.EncryptionOptions;
                operation.Body = encryption is null
                    ? await EncryptedRequestBody.CopyAsync(source, recycle, cancellationToken).ConfigureAwait(false)
                    : await _container.Crypto.EncryptAsync(source, encryption, recycle, telemetry, cancellationToken).ConfigureAwait(false);
            }
            finally
            {
                // Serialized items are ours to dispose (a pooled, zeroing stream for the default serializer).
                if (operation.Stream is null)
                {
                    await source.DisposeAsync().ConfigureAwait(false);
                }
            }

            ReadOnlySpan<byte> body = operation.Body.Content.Span;
            operation.Id ??= DocumentId.TryRead(body);
            operation.Envelope = operation.EncryptionOptions is null ? TryReadEnvelope(body) : _container.Crypto.ReadMetadata(body);
        }
    }

    private async Task PreparePatchesAsync(OperationTelemetry? telemetry, CancellationToken cancellationToken)
    {
        for (int i = 0; i < _operations.Count; i++)
        {
            BatchOperation operation = _operations[i];
            if (operation.Kind != BatchOperationKind.Patch)
            {
                continue;
            }

            var options = (TransactionalBatchPatchItemRequestOptions?)operation.Options;
            EnvelopeMetadata? stored;
            string? etag = options?.IfMatchEtag;
            operation.HasContainerCondition = false;
            ReadOnlyMemory<byte>? document = null;
            string? documentUnknown = null;
            if (FindEarlierWrite(i, operation.Id!) is { } earlier)
            {
                // The batch itself writes the document first: its metadata is what that write sends.
                stored = earlier.Kind == BatchOperationKind.Delete ? null : earlier.Envelope;
                if (earlier.Body is { } body)
                {
                    // The whole document as that write sends it (same id; same partition key, or the batch fails).
                    document = body.Content;
                }
                else
                {
                    documentUnknown = earlier.Kind == BatchOperationKind.Delete
                        ? "an earlier operation of the batch deletes that document."
                        : "an earlier patch of the batch changes that document, whose result is not known until the batch runs.";
                }
            }
            else
            {
                ResponseMessage read = await _container.Inner.ReadItemStreamAsync(operation.Id!, _storedPartitionKey, EncryptionContainer.CreateMetadataReadOptions(options), cancellationToken).ConfigureAwait(false);
                using (read)
                {
                    if (read.IsSuccessStatusCode)
                    {
                        byte[] bytes = await CosmosStreams.ReadAllAsync(read.Content, cancellationToken).ConfigureAwait(false);
                        document = bytes;
                        stored = _container.Crypto.ReadMetadata(bytes);
                        PatchedDocumentCheck.CheckStored(bytes, _container.WriteOptions.Rules, _container.Crypto.Processor.MaxDepth);
                        if (etag is null)
                        {
                            etag = read.Headers.ETag;
                            operation.HasContainerCondition = true;
                        }
                    }
                    else
                    {
                        // Missing: the batch's own patch answers 404 and fails the batch.
                        stored = null;
                        documentUnknown = "the document was not found when the batch was prepared.";
                    }
                }
            }

            PatchRewrite rewrite = await RewritePatchAsync(i, operation, new PatchedDocument(stored, document), documentUnknown, telemetry, cancellationToken).ConfigureAwait(false);
            operation.SendPatchOperations = rewrite.Operations;
            operation.Envelope = rewrite.Envelope;
            operation.SendPatchOptions = PatchRequestOptionsCopier.Copy(options, etag);
        }
    }

    // A body sent as it is may still carry metadata (an encrypted document copied as is); an invalid one is the service's to refuse.
    private EnvelopeMetadata? TryReadEnvelope(ReadOnlySpan<byte> body)
    {
        try
        {
            return _container.Crypto.ReadMetadata(body);
        }
        catch (EncryptionException)
        {
            return null;
        }
    }

    private BatchOperation? FindEarlierWrite(int index, string id)
    {
        for (int i = index - 1; i >= 0; i--)
        {
            BatchOperation earlier = _operations[i];
            // Writes, deletes and earlier patches of the same document define its metadata at this point.
            if (earlier.Kind != BatchOperationKind.Read && string.Equals(earlier.Id, id, StringComparison.Ordinal))
            {
                return earlier;
            }
        }

        return null;
    }

    private bool FailedOnContainerCondition(TransactionalBatchResponse response)
    {
        for (int i = 0; i < _operations.Count && i < response.Count; i++)
        {
            if (_operations[i].HasContainerCondition && response[i].StatusCode == HttpStatusCode.PreconditionFailed)
            {
                return true;
            }
        }

        return false;
    }

    private static void AddTo(TransactionalBatch inner, BatchOperation operation)
    {
        switch (operation.Kind)
        {
            case BatchOperationKind.Create:
                inner.CreateItemStream(operation.Body!.CreateStream(), operation.Options);
                break;
            case BatchOperationKind.Replace:
                inner.ReplaceItemStream(operation.Id!, operation.Body!.CreateStream(), operation.Options);
                break;
            case BatchOperationKind.Upsert:
                inner.UpsertItemStream(operation.Body!.CreateStream(), operation.Options);
                break;
            case BatchOperationKind.Read:
                inner.ReadItem(operation.Id!, operation.Options);
                break;
            case BatchOperationKind.Delete:
                inner.DeleteItem(operation.Id!, operation.Options);
                break;
            default:
                inner.PatchItem(operation.Id!, operation.SendPatchOperations!, operation.SendPatchOptions);
                break;
        }
    }
}
