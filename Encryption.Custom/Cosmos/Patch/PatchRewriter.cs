using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Json.JTokens;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// The one patch strategy: the operations are classified against the path model (<see cref="PatchPlan"/>: the paths
/// the request writes; for a format 3 document also the paths it lists), what a patch can carry is rewritten (a value
/// written where a path is encrypted becomes its cell, encrypted with the document's key; the metadata follows), and
/// what it cannot (a move of encrypted values, a value with query tokens, a document not written the way the request
/// writes it, more operations than the service takes) is answered with the reason, which the caller applies as a
/// conditional replace (or, inside a batch, refuses). See docs/container.md "Patch".
/// </summary>
internal static partial class PatchRewriter
{
    /// <summary>The most operations the service accepts in one patch request.</summary>
    public const int MaxOperations = 10;

    /// <summary>Rewrites <paramref name="patch"/> for the stored <paramref name="document"/>.</summary>
    /// <param name="patch">The classified patch.</param>
    /// <param name="document">The stored document.</param>
    /// <param name="crypto">The container's policy, processor, encryptor and serializer.</param>
    /// <param name="telemetry">The operation's telemetry.</param>
    /// <param name="cancellationToken">Cancels the key lookup.</param>
    /// <returns>The operations to send, or why the patch must be applied as a conditional replace.</returns>
    /// <exception cref="EncryptionException">
    /// An operation is refused, the stored key is not one the policy accepts, a value cannot be encrypted, the key is
    /// unavailable, or a replace is needed where no encryption options apply (it would store the document unencrypted).
    /// </exception>
    public static async ValueTask<PatchRewrite> RewriteAsync(PatchPlan patch, PatchedDocument document, PatchCrypto crypto, OperationTelemetry? telemetry, CancellationToken cancellationToken)
    {
        EnvelopeMetadata? stored = document.Envelope;
        if (crypto.Rules is { } rules && stored is not null && !rules.AcceptsKey(stored.DataEncryptionKeyId))
        {
            // A key id read from the document never reaches the key store unless the policy accepts it.
            throw PatchErrors.KeyNotAccepted(stored.DataEncryptionKeyId);
        }

        PatchRewrite rewrite;
        if (patch.WritesExtendedFormat)
        {
            rewrite = await RewriteExtendedAsync(patch, document, crypto, telemetry, cancellationToken).ConfigureAwait(false);
        }
        else if (stored is null || stored.FormatVersion == EncryptionEnvelope.CurrentFormatVersion)
        {
            rewrite = await RewriteTopLevelAsync(patch, stored, crypto, telemetry, cancellationToken).ConfigureAwait(false);
        }
        else
        {
            rewrite = JudgeOtherFormat(patch, stored);
        }

        if (rewrite.ReplaceReason is { } reason && patch.Requested is null)
        {
            throw PatchErrors.NoOptionsToReplace(reason, stored?.DataEncryptionKeyId);
        }

        return rewrite;
    }

    // A format 2 or 101 document under options that write format 3 (or none): what touches its encrypted values is
    // replaced, which writes it as the options say; everything else passes.
    private static PatchRewrite JudgeOtherFormat(PatchPlan patch, EnvelopeMetadata stored)
    {
        PatchSelectors? listed = ListedSelectors(stored);
        for (int i = 0; i < patch.Operations.Count; i++)
        {
            ClassifiedOperation operation = patch.Classified[i].Touches || listed is null
                ? patch.Classified[i]
                : PatchClassifier.Classify([patch.Operations[i]], listed)[0];
            if (!operation.Touches && listed is not null)
            {
                continue;
            }

            string path = operation.Target.Kind is PatchPathKind.Selected or PatchPathKind.Ancestor || operation.Operation.From is null
                ? operation.Operation.Path
                : operation.Operation.From;
            if (patch.Requested is null)
            {
                // Nothing to replace it with: say what the document is.
                throw stored.FormatVersion == EncryptionEnvelope.LegacyFormatVersion
                    ? PatchErrors.LegacyFormat(path, stored.DataEncryptionKeyId)
                    : PatchErrors.ExtendedFormat(path, stored.DataEncryptionKeyId);
            }

            return PatchRewrite.Replace(stored.FormatVersion == EncryptionEnvelope.LegacyFormatVersion
                ? $"the document is encrypted in format 2, whose properties ('{path}' among them) are stored together in one value."
                : $"the document is in format 101 (nested selectors or bound values), which the options do not write, and '{path}' touches its encrypted values.");
        }

        return PatchRewrite.Send(patch.Operations, stored);
    }

    // The paths a document lists, as selectors to classify against (a key and algorithm only to compile them);
    // null when they cannot be read as paths, which the caller treats as touching everything (fail closed).
    private static PatchSelectors? ListedSelectors(EnvelopeMetadata stored)
    {
        try
        {
            string[] paths = [.. stored.Paths.Where(p => p != "/" + EncryptionEnvelope.AnchorName)];
            return PatchSelectors.For(EncryptionPlan.Create(stored.DataEncryptionKeyId, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, paths));
        }
        catch (EncryptionException)
        {
            return null;
        }
    }

    /// <summary>The operation's value as the client's serializer writes it, parsed as the Newtonsoft processor parses documents, and its size.</summary>
    internal static (JToken Value, int Bytes) ReadValue(PatchOperation operation, CosmosSerializer serializer, int maxDepth, string? keyId)
    {
        if (!operation.TrySerializeValueParameter(serializer, out Stream? valueStream) || valueStream is null)
        {
            throw new EncryptionException(EncryptionErrorKind.InvalidOptions, $"The patch operation on '{operation.Path}' carries no value.", keyId, operation.Path);
        }

        // A pooled buffer: it holds plaintext, zeroed when it goes back to the pool.
        PooledBufferWriter json = PooledBufferWriterPool.Rent();
        try
        {
            using (valueStream)
            {
                for (int read; (read = valueStream.Read(json.GetSpan(4096))) > 0;)
                {
                    json.Advance(read);
                }
            }

            JToken value = JObjectReader.TryParseValue(json.WrittenSpan, maxDepth, levels: 0) ?? throw PatchErrors.NotJson(operation.Path, keyId);
            return (value, json.WrittenCount);
        }
        finally
        {
            PooledBufferWriterPool.Return(json);
        }
    }

    private static PatchOperation WithValue<T>(PatchOperation operation, T value) => operation.OperationType switch
    {
        PatchOperationType.Add => PatchOperation.Add(operation.Path, value),
        PatchOperationType.Replace => PatchOperation.Replace(operation.Path, value),
        _ => PatchOperation.Set(operation.Path, value),
    };
}
