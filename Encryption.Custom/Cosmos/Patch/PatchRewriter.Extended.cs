using Encryption.Custom.Crypto.Pooling;
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
/// Format 101 (nested selectors, bound cells, query tokens): a value written at a selected position becomes that
/// selector's cell, a value written above selected positions gets them encrypted inside it (by the Newtonsoft
/// processor's own walk, <see cref="JNestedCrypto"/>), bound to the stored document's id and partition key and to the
/// selector (never the array index) when the plan binds; <c>_ep</c> gains the selectors that now hold a cell.
/// </summary>
internal static partial class PatchRewriter
{
    // A token path itself, or an ancestor of one (setting, removing or moving /address changes /address/zip).
    private static bool HasQueryTokens(EncryptionPlan plan, PatchPathClass target) =>
        plan.HasQueryTokens && target.Kind is PatchPathKind.Selected or PatchPathKind.Ancestor && target.Node is { } node && HasQueryTokens(plan, node);

    private static bool HasQueryTokens(EncryptionPlan plan, SelectorNode node)
    {
        if (node.IsLeaf)
        {
            return plan.GetQueryTokens(node.RuleIndex) is not null;
        }

        for (int i = 0; i < node.ChildCount; i++)
        {
            if (HasQueryTokens(plan, node.GetChild(i)))
            {
                return true;
            }
        }

        return node.Elements is { } elements && HasQueryTokens(plan, elements);
    }

    private static async ValueTask<PatchRewrite> RewriteExtendedAsync(PatchPlan patch, PatchedDocument stored, PatchCrypto crypto, OperationTelemetry? telemetry, CancellationToken cancellationToken)
    {
        EncryptionPlan plan = patch.Selectors!.Plan;
        int maxDepth = crypto.Processor.MaxDepth;
        bool writes = false;
        bool touches = false;
        foreach (ClassifiedOperation operation in patch.Classified)
        {
            if (operation.MovesEncryptedValue)
            {
                return PatchRewrite.Replace(MoveReason(operation.Operation));
            }

            writes |= operation.WritesEncryptedValue;
            touches |= operation.Touches;
            if (HasQueryTokens(plan, operation.Target) || HasQueryTokens(plan, operation.From))
            {
                // The value's tokens in '_q' must follow it; the replace rewrites the document through the processor,
                // which computes them (docs/queries.md "Range and prefix queries").
                return PatchRewrite.Replace($"the operation on '{operation.Operation.Path}' changes a value with query tokens, which a patch cannot recompute in '_q'.");
            }
        }

        if (touches && stored.Document is null)
        {
            // Inside a batch, after an operation of the same batch whose result is not known yet.
            return PatchRewrite.Replace("the document is not known before the batch runs (an earlier operation of the batch changes it), and encrypted values cannot be patched without it.");
        }

        ReadOnlyMemory<byte> document = stored.Document ?? ReadOnlyMemory<byte>.Empty;
        if (!writes)
        {
            // A remove of encrypted values changes which cells a committed document holds: only a rewrite can
            // recompute its commitment (docs/wire-format.md "Document commitment").
            if (touches && JEnvelope.Read(JObjectReader.ParseObject(document.Span, maxDepth))?.Commitment is not null)
            {
                return PatchRewrite.Replace("the document carries a document commitment ('commit' in '_ev.crit'), which a patch that removes encrypted values cannot recompute.");
            }

            // Removes, and operations on plain values: nothing to encrypt, the metadata stays true.
            return PatchRewrite.Send(patch.Operations, stored.Envelope);
        }

        JObject parsed = JObjectReader.ParseObject(document.Span, maxDepth);
        if (!IsWrittenAsPlan(parsed, plan, out string? reason))
        {
            return PatchRewrite.Replace(reason!);
        }

        CellBinding binding = plan.Binding is { } target
            ? JBinding.Compute(parsed, target, plan.EncryptionAlgorithm, plan.DataEncryptionKeyId)
            : default;
        var cells = new EncryptedCells(new bool[plan.PathCount]);
        var result = new List<PatchOperation>(patch.Operations.Count + 1);
        long start = telemetry is null ? 0 : OperationTelemetry.Timestamp();
        using (DataEncryptionKeyLease lease = await KeyResolver.LeaseAsync(crypto.Encryptor, plan.DataEncryptionKeyId, plan.EncryptionAlgorithm, cancellationToken).ConfigureAwait(false))
        {
            foreach (ClassifiedOperation operation in patch.Classified)
            {
                result.Add(operation.WritesEncryptedValue
                    ? Encrypt(operation, lease.Key!, plan, binding, cells, crypto)
                    : operation.Operation);
            }
        }

        RecordEncrypt(telemetry, start, crypto, plan.DataEncryptionKeyId, cells);
        List<string> listed = [.. parsed[EncryptionEnvelope.PropertyName]![EncryptionEnvelope.PathsName]!.Values<string>().Select(p => p!)];
        var paths = new List<string>(plan.PathCount + 1) { "/" + EncryptionEnvelope.AnchorName };
        for (int i = 0; i < plan.PathCount; i++)
        {
            if (cells.Encrypted[i] || listed.Contains(plan.GetPath(i)))
            {
                paths.Add(plan.GetPath(i));
            }
        }

        if (!paths.SequenceEqual(listed, StringComparer.Ordinal))
        {
            result.Add(PatchOperation.Set("/" + EncryptionEnvelope.PropertyName + "/" + EncryptionEnvelope.PathsName, paths.ToArray()));
        }

        return Checked(result, stored.Envelope);
    }

    /// <summary>
    /// Whether the stored document is encrypted exactly as the plan writes (format 101, same key and algorithm, same
    /// features, only paths the plan has): only then can cells be added without rewriting the rest.
    /// </summary>
    internal static bool IsWrittenAsPlan(JObject stored, EncryptionPlan plan, out string? reason)
    {
        JEnvelope? envelope = JEnvelope.Read(stored);
        reason = envelope switch
        {
            null => "the document is not encrypted yet, and a patch cannot add the format 101 metadata and anchor it needs.",
            { Format: not EnvelopeFormat.Extended } => "the document is in an older format than the one the policy writes (101), and a patch cannot convert it.",
            _ when envelope.KeyId != plan.DataEncryptionKeyId || envelope.Algorithm != plan.EncryptionAlgorithm => "the document is encrypted with another key or algorithm than the policy's (a rotation), and a patch would mix them.",
            _ when envelope.Bound != plan.IsBound => "the document's binding differs from the policy's, and a patch cannot change it.",
            _ when envelope.Commitment is not null => "the document carries a document commitment ('commit' in '_ev.crit'), which a patch cannot recompute without every other cell.",
            _ when !JToken.DeepEquals(stored[EncryptionEnvelope.PropertyName]![EncryptionEnvelope.FeaturesName], Features(plan)) => "the document's format features differ from the policy's.",
            _ when envelope.Paths.Any(p => p != "/" + EncryptionEnvelope.AnchorName && plan.IndexOf(p) < 0) => "the document lists encrypted paths the policy does not have.",
            _ => null,
        };
        return reason is null;
    }

    private static JToken? Features(EncryptionPlan plan) =>
        JEnvelope.Create(plan, [], commit: false)[EncryptionEnvelope.FeaturesName];

    // One operation's value encrypted where the plan selects (the value itself, or the selected values inside it).
    private static PatchOperation Encrypt(ClassifiedOperation classified, DataEncryptionKey key, EncryptionPlan plan, CellBinding binding, EncryptedCells cells, PatchCrypto crypto)
    {
        PatchOperation operation = classified.Operation;
        (JToken value, int bytes) = ReadValue(operation, crypto.Serializer, crypto.Processor.MaxDepth, plan.DataEncryptionKeyId);
        if (value.Type == JTokenType.Null)
        {
            // Null is never encrypted (it stays plain null, as in a written document).
            return operation;
        }

        cells.Bytes += bytes;
        cells.Values++;
        if (classified.Target.Kind == PatchPathKind.Selected)
        {
            int index = classified.Target.RuleIndex;
            string cell = JTokenValueCodec.Encrypt(value, key, plan, index, binding);
            cells.Encrypted[index] = true;
            return WithValue(operation, cell);
        }

        // An ancestor: wrapped so that a selected child can be replaced in place by its cell.
        var holder = new JArray(value);
        JNestedCrypto.Encrypt(holder[0], classified.Target.Node!, key, plan, cells.Encrypted, binding);
        var json = new MemoryStream();
        using (var buffer = new PooledBufferWriter())
        {
            JObjectReader.WriteUtf8(holder[0], buffer);
            json.Write(buffer.WrittenSpan);
        }

        json.Position = 0;
        return WithValue<Stream>(operation, json);
    }

    private static string MoveReason(PatchOperation operation) =>
        $"the move from '{operation.From}' to '{operation.Path}' carries encrypted values to another position, whose cells are bound to their path.";

    // The service's limit on operations per request; beyond it, the replace.
    private static PatchRewrite Checked(List<PatchOperation> operations, EnvelopeMetadata? after) =>
        operations.Count > MaxOperations
            ? PatchRewrite.Replace($"encrypted, it takes {operations.Count} operations (metadata included), more than the {MaxOperations} the service accepts in one patch.")
            : PatchRewrite.Send(operations, after);

    private static void RecordEncrypt(OperationTelemetry? telemetry, long start, PatchCrypto crypto, string keyId, EncryptedCells cells)
    {
        if (cells.Values > 0)
        {
            telemetry?.RecordEncrypt(start, Processing.BodyCrypto.ProcessorName(crypto.Processor), cells.Bytes, keyId, cells.Values);
        }
    }

    // Which of the plan's paths received a cell, and how much was encrypted (for telemetry).
    private sealed class EncryptedCells(bool[] encrypted)
    {
        public bool[] Encrypted { get; } = encrypted;

        public long Bytes { get; set; }

        public int Values { get; set; }
    }
}
