using Encryption.Custom.Diagnostics;
using Encryption.Custom.Json.JTokens;
using Encryption.Custom.Json.Leasing;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// Format 3 (top-level paths, one key per document): the encrypted paths are those the stored document lists plus
/// those the request writes, so a property that was <c>null</c> (hence not encrypted) when the document was written
/// is still encrypted when a patch gives it a value; values are encrypted with the document's key (a document has
/// one key, also during a rotation); a remove, or a value set to <c>null</c> (never encrypted), leaves <c>_ep</c>; a
/// document not yet encrypted gets the whole <c>_ei</c>.
/// </summary>
internal static partial class PatchRewriter
{
    private static async ValueTask<PatchRewrite> RewriteTopLevelAsync(PatchPlan patch, EnvelopeMetadata? stored, PatchCrypto crypto, OperationTelemetry? telemetry, CancellationToken cancellationToken)
    {
        PatchSelectors? selectors = DocumentSelectors(patch, stored);
        if (selectors is null)
        {
            // Nothing is encrypted, nor would be.
            return PatchRewrite.Send(patch.Operations, stored);
        }

        ClassifiedOperation[] classified = ReferenceEquals(selectors, patch.Selectors)
            ? patch.Classified
            : PatchClassifier.Classify(patch.Operations, selectors);
        EncryptionPlan plan = selectors.Plan;
        List<string> listed = stored is null ? [] : [.. stored.Paths];
        var paths = new List<string>(listed);
        var result = new List<PatchOperation>(classified.Length + 1);
        var cells = new EncryptedCells(new bool[plan.PathCount]);
        long start = telemetry is null ? 0 : OperationTelemetry.Timestamp();
        DataEncryptionKeyLease? lease = null;
        try
        {
            foreach (ClassifiedOperation operation in classified)
            {
                if (operation.MovesEncryptedValue)
                {
                    return PatchRewrite.Replace(MoveReason(operation.Operation));
                }

                if (!operation.Touches)
                {
                    result.Add(operation.Operation);
                    continue;
                }

                if (operation.Target.Kind != PatchPathKind.Selected)
                {
                    // Top-level paths have no ancestor but the document itself: nothing a patch can name.
                    return PatchRewrite.Replace($"the operation on '{operation.Operation.Path}' holds encrypted values.");
                }

                string path = plan.GetPath(operation.Target.RuleIndex);
                if (operation.Operation.OperationType == PatchOperationType.Remove)
                {
                    result.Add(operation.Operation);
                    paths.Remove(path);
                    continue;
                }

                if (!operation.WritesEncryptedValue)
                {
                    // Increments were refused when classified; an operation type this code does not know is not sent.
                    return PatchRewrite.Replace($"the operation '{operation.Operation.OperationType}' on '{operation.Operation.Path}' cannot carry an encrypted value.");
                }

                lease ??= await KeyResolver.LeaseAsync(crypto.Encryptor, plan.DataEncryptionKeyId, plan.EncryptionAlgorithm, cancellationToken).ConfigureAwait(false);
                PatchOperation sent = Encrypt(operation, lease.Value.Key!, plan, default, cells, crypto);
                result.Add(sent);
                if (ReferenceEquals(sent, operation.Operation))
                {
                    // Set to null: stored as plain null, no longer listed.
                    paths.Remove(path);
                }
                else if (!paths.Contains(path))
                {
                    paths.Add(path);
                }
            }
        }
        finally
        {
            lease?.Dispose();
        }

        RecordEncrypt(telemetry, start, crypto, plan.DataEncryptionKeyId, cells);
        EnvelopeMetadata? after = stored;
        if (stored is null)
        {
            if (paths.Count > 0)
            {
                result.Add(PatchOperation.Set("/" + EncryptionEnvelope.PropertyName, CreateEnvelope(plan.DataEncryptionKeyId, plan.EncryptionAlgorithm, paths)));
                after = EnvelopeMetadata.Create(EncryptionEnvelope.CurrentFormatVersion, plan.DataEncryptionKeyId, plan.EncryptionAlgorithm, paths);
            }
        }
        else if (!paths.SequenceEqual(listed, StringComparer.Ordinal))
        {
            result.Add(PatchOperation.Set("/" + EncryptionEnvelope.PropertyName + "/" + EncryptionEnvelope.PathsName, paths.ToArray()));
            after = EnvelopeMetadata.Create(stored.FormatVersion, stored.DataEncryptionKeyId, stored.Algorithm, paths);
        }

        return Checked(result, after);
    }

    // The paths a format 3 document is patched against: the request's plan when the document holds nothing else,
    // otherwise the plan's paths and the document's under the document's key (how a path is encrypted is the plan's
    // to say; a path only the document lists is randomized, as Microsoft's package writes every path).
    private static PatchSelectors? DocumentSelectors(PatchPlan patch, EnvelopeMetadata? stored)
    {
        EncryptionPlan? planned = patch.Selectors?.Plan;
        if (stored is null || stored.Paths.Count == 0)
        {
            return patch.Selectors;
        }

        if (planned is not null
            && stored.DataEncryptionKeyId == planned.DataEncryptionKeyId
            && stored.Algorithm == planned.EncryptionAlgorithm
            && stored.Paths.TrueForAll(p => planned.IndexOf(p) >= 0))
        {
            return patch.Selectors;
        }

        var paths = new List<string>();
        var deterministic = new List<string>();
        for (int i = 0; i < (planned?.PathCount ?? 0); i++)
        {
            paths.Add(planned!.GetPath(i));
            if (planned.IsDeterministic(i))
            {
                deterministic.Add(planned.GetPath(i));
            }
        }

        paths.AddRange(stored.Paths.Where(p => !paths.Contains(p)));
        EncryptionPlan document;
        try
        {
            document = EncryptionPlan.Create(stored.DataEncryptionKeyId, stored.Algorithm, paths, deterministic);
        }
        catch (EncryptionException exception)
        {
            throw PatchErrors.ListedPaths(exception.Message, stored.DataEncryptionKeyId);
        }

        return document.IsExtendedFormat
            ? throw PatchErrors.ListedPaths("a format 3 document lists only top-level properties other than the id.", stored.DataEncryptionKeyId)
            : PatchSelectors.For(document);
    }

    // Serialized by the client's serializer: a dictionary keeps the names as they are (naming policies leave a
    // leading underscore alone), and readers accept "_ed" absent when a serializer drops nulls.
    private static Dictionary<string, object?> CreateEnvelope(string keyId, string algorithm, List<string> paths) => new(StringComparer.Ordinal)
    {
        [EncryptionEnvelope.FormatVersionName] = EncryptionEnvelope.CurrentFormatVersion,
        [EncryptionEnvelope.KeyIdName] = keyId,
        [EncryptionEnvelope.AlgorithmName] = algorithm,
        [EncryptionEnvelope.EncryptedDataName] = null,
        [EncryptionEnvelope.PathsName] = paths.ToArray(),
    };
}
