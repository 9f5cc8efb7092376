using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Json.JTokens;
using Encryption.Custom.Keys.Cosmos;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Cosmos;

/// <summary>
/// The conditional replace that stands in for a patch the service cannot be sent once its values are encrypted
/// (<see cref="EncryptionContainerOptions.PatchFallbackToReplace"/>): the document as read is decrypted by the
/// container's processor (with the policy's read checks), the caller's operations are applied in process, and the
/// result goes through the container's own write path (encrypted and bound as any replace) with
/// <c>IfMatchEtag</c> = the ETag read, so a writer in between makes it fail with 412 and the caller's loop
/// starts over from a fresh read: no update is lost.
/// </summary>
internal sealed partial class EncryptionContainer
{
    private async Task<ResponseMessage> ReplaceAsPatchedAsync(
        PatchRequest patch,
        byte[] document,
        string etag,
        string reason,
        OperationTelemetry? telemetry,
        CancellationToken cancellationToken)
    {
        if (!_patchFallbackToReplace)
        {
            throw PatchErrors.ReplaceNeeded(reason, patch.Requested?.DataEncryptionKeyId);
        }

        if (patch.RequestOptions?.FilterPredicate is not null)
        {
            throw PatchErrors.FilterPredicateOnReplace(reason, patch.Requested?.DataEncryptionKeyId);
        }

        int maxDepth = Crypto.Processor.MaxDepth;
        JObject plain;
        using (var stored = new MemoryStream(document, writable: false))
        using (PooledContentStream decrypted = await Crypto.DecryptDocumentAsync(stored, telemetry, cancellationToken).ConfigureAwait(false))
        {
            plain = JObjectReader.ParseObject((await CosmosStreams.ReadAllAsync(decrypted, cancellationToken).ConfigureAwait(false)).AsSpan(), maxDepth);
        }

        string? error = PatchApplier.TryApply(plain, patch.Operations, Serializer, maxDepth);
        // Compared as stored (id is the stored form: LookupKeys encrypts it when the policy does).
        if (error is null && (plain["id"] is not JValue { Type: JTokenType.String } newId
            || !string.Equals(await Lookups.EncryptIdAsync((string)newId!, cancellationToken).ConfigureAwait(false), patch.Id, StringComparison.Ordinal)))
        {
            error = "the operations change the document's id, which a replace cannot.";
        }

        if (error is not null)
        {
            return PatchAsReplace.BadRequest(error);
        }

        PatchAsReplace.RemoveSystemProperties(plain);
        // A pooled body: it holds plaintext, zeroed when the buffer goes back to the pool.
        PooledBufferWriter buffer = PooledBufferWriterPool.Rent();
        try
        {
            JObjectReader.Write(plain, buffer);
        }
        catch
        {
            PooledBufferWriterPool.Return(buffer);
            throw;
        }

        using var body = new PooledContentStream(buffer);
        return await WriteStreamCoreAsync(new ItemWriteRequest(ItemWrite.Replace, patch.Id, patch.PartitionKey, PatchAsReplace.ReplaceOptions(patch.RequestOptions, etag), patch.Requested), body, telemetry, decryptResponse: true, cancellationToken).ConfigureAwait(false);
    }
}
