using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Diagnostics;

namespace Encryption.Custom.Cosmos.Batch;

/// <summary>
/// Patches inside a batch: rewritten by the very code a single patch uses (<see cref="PatchRewriter"/>), against the
/// stored document (the operation's id, the batch's partition key) or what an earlier operation of the batch writes.
/// What a single patch applies as a conditional replace is refused here before the batch is sent: a batch is one
/// transaction, and a read-modify-write cannot run inside it.
/// </summary>
internal sealed partial class EncryptionTransactionalBatch
{
    private async ValueTask<PatchRewrite> RewritePatchAsync(
        int index,
        BatchOperation operation,
        PatchedDocument document,
        string? documentUnknown,
        OperationTelemetry? telemetry,
        CancellationToken cancellationToken)
    {
        PatchPlan patch = operation.PatchPlan!;
        if (patch.WritesExtendedFormat && document.Document is null && patch.WritesEncryptedValues)
        {
            // Format 101 values are written against the stored document (its format, and its id and partition key when bound).
            throw BatchPatchErrors.DocumentUnknown(index, operation.Id!, documentUnknown!, patch.DataEncryptionKeyId);
        }

        var crypto = new PatchCrypto(_container.WriteOptions.Rules, _container.Crypto.Processor, _container.Crypto.Encryptor, _container.Serializer);
        PatchRewrite rewrite = await PatchRewriter.RewriteAsync(patch, document, crypto, telemetry, cancellationToken).ConfigureAwait(false);
        return rewrite.ReplaceReason is { } reason
            ? throw BatchPatchErrors.NeedsReplace(index, operation.Id!, reason, patch.DataEncryptionKeyId)
            : rewrite;
    }
}
