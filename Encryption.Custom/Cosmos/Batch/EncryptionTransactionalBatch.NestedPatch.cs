using Encryption.Custom.Cosmos.Patch;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Batch;

/// <summary>
/// Patches inside a batch under a format 101 plan (nested selectors, binding): classified and rewritten by the very
/// code a single patch uses (<see cref="NestedPatchClassifier"/>, <see cref="NestedPatchRewriter"/>), against the
/// stored document (the operation's id, the batch's partition key) or the body an earlier operation of the batch
/// writes. What a single patch applies as a conditional replace is refused here before the batch is sent: a batch
/// is one transaction, and a read-modify-write cannot run inside it.
/// </summary>
internal sealed partial class EncryptionTransactionalBatch
{
    private async ValueTask<IReadOnlyList<PatchOperation>> RewriteNestedAsync(
        int index,
        BatchOperation operation,
        ReadOnlyMemory<byte>? document,
        string? documentUnknown,
        CancellationToken cancellationToken)
    {
        ClassifiedOperation[] classified = operation.ClassifiedPatch!;
        PatchSelectors selectors = operation.PatchSelectors!;
        string? keyId = selectors.Plan.DataEncryptionKeyId;
        if (document is null && Array.Exists(classified, static c => c.WritesEncryptedValue || c.MovesEncryptedValue))
        {
            // Encrypted values are written against the stored document (its format, and its id and partition key when bound).
            throw BatchPatchErrors.DocumentUnknown(index, operation.Id!, documentUnknown!, keyId);
        }

        NestedPatchResult rewrite = await NestedPatchRewriter.RewriteAsync(
            classified, selectors, document ?? ReadOnlyMemory<byte>.Empty, _container.Crypto.Processor.MaxDepth, _container.Crypto.Encryptor, _container.Serializer, cancellationToken).ConfigureAwait(false);
        return rewrite.ReplaceReason is { } reason
            ? throw BatchPatchErrors.NeedsReplace(index, operation.Id!, reason, keyId)
            : rewrite.Operations!;
    }
}
