using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys.Cosmos;
using Encryption.Custom.Processing;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos;

/// <summary>
/// Patch, one strategy for every format: the operations are classified against the paths the request writes
/// (<see cref="PatchPlan"/>), the stored document is read, what a patch can carry is rewritten for it
/// (<see cref="PatchRewriter"/>: new values encrypted as the document's cells) and sent on the condition that the
/// document is still the one that was read (its ETag), and what a patch cannot carry is applied as a conditional
/// replace (<see cref="EncryptionContainerOptions.PatchFallbackToReplace"/>). A document changed in between is read
/// again, up to <see cref="EncryptionContainerOptions.PatchMaxAttempts"/> times. See docs/container.md.
/// </summary>
internal sealed partial class EncryptionContainer
{
    public override async Task<ItemResponse<T>> PatchItemAsync<T>(string id, PartitionKey partitionKey, IReadOnlyList<PatchOperation> patchOperations, PatchItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(id);
        ArgumentNullException.ThrowIfNull(patchOperations);
        using OperationTelemetry? telemetry = OperationTelemetry.Start(OperationNames.PatchItem, Id);
        try
        {
            ResponseMessage response = await PatchCoreAsync(id, partitionKey, patchOperations, requestOptions, telemetry, cancellationToken).ConfigureAwait(false);
            return _responseFactory.CreateItemResponse<T>(response);
        }
        catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
        {
            throw;
        }
    }

    public override async Task<ResponseMessage> PatchItemStreamAsync(string id, PartitionKey partitionKey, IReadOnlyList<PatchOperation> patchOperations, PatchItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(id);
        ArgumentNullException.ThrowIfNull(patchOperations);
        using OperationTelemetry? telemetry = OperationTelemetry.Start(OperationNames.PatchItemStream, Id);
        try
        {
            return await PatchCoreAsync(id, partitionKey, patchOperations, requestOptions, telemetry, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
        {
            throw;
        }
    }

    /// <summary>Read options for the metadata read that precedes a patch (session and routing preferences kept).</summary>
    internal static ItemRequestOptions CreateMetadataReadOptions(RequestOptions? patchOptions) => new()
    {
        SessionToken = (patchOptions as ItemRequestOptions)?.SessionToken,
        PriorityLevel = patchOptions?.PriorityLevel,
        ExcludeRegions = patchOptions?.ExcludeRegions,
        ThroughputBucket = patchOptions?.ThroughputBucket,
    };

    private async Task<ResponseMessage> PatchCoreAsync(
        string id,
        PartitionKey partitionKey,
        IReadOnlyList<PatchOperation> patchOperations,
        PatchItemRequestOptions? requestOptions,
        OperationTelemetry? telemetry,
        CancellationToken cancellationToken)
    {
        // From here on the stored id and key (LookupKeys), as every request to the inner container needs them.
        id = await Lookups.EncryptIdAsync(id, cancellationToken).ConfigureAwait(false);
        partitionKey = await Lookups.EncryptAsync(partitionKey, cancellationToken).ConfigureAwait(false);

        // Everything that can be refused without the document is refused before anything is sent.
        EncryptionOptions? requested = WriteOptions.Resolve(EncryptionRequestOptionsExtensions.GetAttachedEncryptionOptions(requestOptions));
        PatchPlan patch = PatchPlan.Create(patchOperations, requested, await GetPatchSelectorsAsync(requested, cancellationToken).ConfigureAwait(false));
        if (requested is not null)
        {
            await _partitionKeyGuard.CheckAsync(requested, cancellationToken).ConfigureAwait(false);
        }

        EncryptionProcessor processor = Crypto.Processor;
        var crypto = new PatchCrypto(WriteOptions.Rules, processor, Crypto.Encryptor, Serializer);
        string? callerEtag = requestOptions?.IfMatchEtag;
        int attempts = callerEtag is null ? _patchMaxAttempts : 1;
        ItemRequestOptions readOptions = CreateMetadataReadOptions(requestOptions);
        for (int attempt = 1; ; attempt++)
        {
            ResponseMessage read = await _inner.ReadItemStreamAsync(id, partitionKey, readOptions, cancellationToken).ConfigureAwait(false);
            if (!read.IsSuccessStatusCode)
            {
                // A missing document is what the patch itself would have answered.
                telemetry?.SetStatusCode(read.StatusCode);
                return read;
            }

            string etag;
            byte[] document;
            using (read)
            {
                document = await CosmosStreams.ReadAllAsync(read.Content, cancellationToken).ConfigureAwait(false);
                etag = callerEtag ?? read.Headers.ETag;
            }

            PatchedDocumentCheck.CheckStored(document, WriteOptions.Rules, processor.MaxDepth);
            PatchRewrite rewrite = await PatchRewriter.RewriteAsync(patch, new PatchedDocument(Crypto.ReadMetadata(document), document), crypto, telemetry, cancellationToken).ConfigureAwait(false);
            ResponseMessage response;
            bool decrypted = false;
            string? replaceReason = rewrite.ReplaceReason;
            if (replaceReason is not null)
            {
                response = await ReplaceAsPatchedAsync(new PatchRequest(id, partitionKey, patchOperations, requestOptions, requested), document, etag, replaceReason, telemetry, cancellationToken).ConfigureAwait(false);
                decrypted = true;
            }
            else
            {
                response = await _inner.PatchItemStreamAsync(id, partitionKey, rewrite.Operations!, PatchRequestOptionsCopier.Copy(requestOptions, etag), cancellationToken).ConfigureAwait(false);
            }

            telemetry?.SetStatusCode(response.StatusCode);
            if (response.StatusCode == System.Net.HttpStatusCode.PreconditionFailed && callerEtag is null)
            {
                if (attempt < attempts)
                {
                    // Changed since the read: its metadata may have changed too, so start over.
                    response.Dispose();
                    continue;
                }

                if (replaceReason is not null)
                {
                    return PatchAsReplace.StillConflicting(response, attempts);
                }
            }

            if (!decrypted)
            {
                await DecryptResponseAsync(response, telemetry, write: true, cancellationToken).ConfigureAwait(false);
            }

            return response;
        }
    }

    /// <summary>
    /// The paths a patch is classified against: those of the plan <paramref name="requested"/> writes (bound to the
    /// container when the policy binds, as every write is), or <see langword="null"/> without options. The one entry
    /// point for single patches and patches inside a transactional batch, so both classify alike.
    /// </summary>
    internal async ValueTask<PatchSelectors?> GetPatchSelectorsAsync(EncryptionOptions? requested, CancellationToken cancellationToken)
    {
        if (requested is null)
        {
            return null;
        }

        if (WriteOptions.Rules is { Binds: true })
        {
            BindingTarget target = (await Crypto.GetProcessorAsync(cancellationToken).ConfigureAwait(false)).Rules!.Plan.Binding!;
            PatchBoundOptions? last = _patchBoundOptions;
            if (last is null || !ReferenceEquals(last.Source, requested) || !ReferenceEquals(last.Target, target))
            {
                last = new PatchBoundOptions(requested, target, requested.WithBinding(target));
                _patchBoundOptions = last;
            }

            requested = last.Bound;
        }

        return PatchSelectors.For(requested.GetPlan());
    }

    // The policy's options are one instance for every patch: their bound copy (and its compiled plan) is kept.
    private sealed record PatchBoundOptions(EncryptionOptions Source, BindingTarget Target, EncryptionOptions Bound);
}
