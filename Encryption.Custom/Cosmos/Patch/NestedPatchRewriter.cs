using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Json.JTokens;
using Encryption.Custom.Json.Leasing;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// Rewrites a classified patch (<see cref="NestedPatchClassifier"/>) for a format 101 document: a value written at a
/// selected position becomes that selector's cell, a value written above selected positions gets them encrypted
/// inside it (by the Newtonsoft processor's own walk, <see cref="JNestedCrypto"/>), bound to the stored document's id
/// and partition key and to the selector (never the array index) when the plan binds; <c>_ep</c> gains the selectors
/// that now hold a cell. Everything else passes unchanged. When a patch cannot express the result, it says why, and
/// the caller replaces the document conditionally instead.
/// </summary>
internal static class NestedPatchRewriter
{
    /// <summary>The most operations the service accepts in one patch request.</summary>
    public const int MaxOperations = 10;

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

    /// <summary>Rewrites <paramref name="operations"/> for the stored <paramref name="document"/>.</summary>
    /// <param name="operations">The classified operations.</param>
    /// <param name="selectors">The plan's selectors (bound to the container when the policy binds).</param>
    /// <param name="document">The stored document as read (its metadata says how it is encrypted).</param>
    /// <param name="maxDepth">The container's depth limit.</param>
    /// <param name="encryptor">Supplies the key.</param>
    /// <param name="serializer">Serializes operation values as the client does.</param>
    /// <param name="cancellationToken">Cancels the key lookup.</param>
    /// <returns>The operations to send, or why the patch must be applied as a conditional replace.</returns>
    /// <exception cref="EncryptionException">A value cannot be encrypted (a case variant inside it, a value a cell cannot hold), or the key is unavailable.</exception>
    public static async ValueTask<NestedPatchResult> RewriteAsync(
        IReadOnlyList<ClassifiedOperation> operations,
        PatchSelectors selectors,
        ReadOnlyMemory<byte> document,
        int maxDepth,
        Encryptor encryptor,
        CosmosSerializer serializer,
        CancellationToken cancellationToken)
    {
        bool writes = false;
        bool touches = false;
        for (int i = 0; i < operations.Count; i++)
        {
            if (operations[i].MovesEncryptedValue)
            {
                return NestedPatchResult.Replace($"the move from '{operations[i].Operation.From}' to '{operations[i].Operation.Path}' carries encrypted values to another position, whose cells are bound to their selector.");
            }

            writes |= operations[i].WritesEncryptedValue;
            touches |= operations[i].Target.Kind is PatchPathKind.Selected or PatchPathKind.Ancestor;
            if (HasQueryTokens(selectors.Plan, operations[i].Target) || HasQueryTokens(selectors.Plan, operations[i].From))
            {
                // The value's tokens in '_q' must follow it; the replace rewrites the document through the processor,
                // which computes them (docs/queries.md "Range and prefix queries").
                return NestedPatchResult.Replace($"the operation on '{operations[i].Operation.Path}' changes a value with query tokens, which a patch cannot recompute in '_q'.");
            }
        }

        if (!writes)
        {
            // A remove of encrypted values changes which cells a committed document holds: only a rewrite can
            // recompute its commitment (docs/wire-format.md "Document commitment").
            if (touches && JEnvelope.Read(JObjectReader.ParseObject(document.Span, maxDepth))?.Commitment is not null)
            {
                return NestedPatchResult.Replace("the document carries a document commitment ('commit' in '_ev.crit'), which a patch that removes encrypted values cannot recompute.");
            }

            // Removes, and operations on plain values: nothing to encrypt, the metadata stays true.
            return NestedPatchResult.Send([.. operations.Select(o => o.Operation)]);
        }

        EncryptionPlan plan = selectors.Plan;
        JObject stored = JObjectReader.ParseObject(document.Span, maxDepth);
        if (!IsWrittenAsPlan(stored, plan, out string? reason))
        {
            return NestedPatchResult.Replace(reason!);
        }

        CellBinding binding = plan.Binding is { } target
            ? JBinding.Compute(stored, target, plan.EncryptionAlgorithm, plan.DataEncryptionKeyId)
            : default;
        bool[] encrypted = new bool[plan.PathCount];
        var result = new List<PatchOperation>(operations.Count + 1);
        using (DataEncryptionKeyLease lease = await KeyResolver.LeaseAsync(encryptor, plan.DataEncryptionKeyId, plan.EncryptionAlgorithm, cancellationToken).ConfigureAwait(false))
        {
            foreach (ClassifiedOperation operation in operations)
            {
                result.Add(operation.WritesEncryptedValue
                    ? Encrypt(operation, lease.Key!, plan, binding, encrypted, serializer, maxDepth)
                    : operation.Operation);
            }
        }

        List<string> listed = ReadListedPaths(stored);
        var paths = new List<string>(plan.PathCount + 1) { "/" + EncryptionEnvelope.AnchorName };
        for (int i = 0; i < plan.PathCount; i++)
        {
            if (encrypted[i] || listed.Contains(plan.GetPath(i)))
            {
                paths.Add(plan.GetPath(i));
            }
        }

        if (!paths.SequenceEqual(listed, StringComparer.Ordinal))
        {
            result.Add(PatchOperation.Set("/" + EncryptionEnvelope.PropertyName + "/" + EncryptionEnvelope.PathsName, paths.ToArray()));
        }

        return result.Count > MaxOperations
            ? NestedPatchResult.Replace($"encrypted, it takes {result.Count} operations (metadata included), more than the {MaxOperations} the service accepts in one patch.")
            : NestedPatchResult.Send(result);
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

    private static List<string> ReadListedPaths(JObject stored) =>
        [.. stored[EncryptionEnvelope.PropertyName]![EncryptionEnvelope.PathsName]!.Values<string>().Select(p => p!)];

    private static PatchOperation Encrypt(ClassifiedOperation classified, DataEncryptionKey key, EncryptionPlan plan, CellBinding binding, bool[] encrypted, CosmosSerializer serializer, int maxDepth)
    {
        PatchOperation operation = classified.Operation;
        JToken value = ReadValue(operation, serializer, maxDepth, plan.DataEncryptionKeyId);
        if (value.Type == JTokenType.Null)
        {
            // Null is never encrypted (it stays plain null, as in a written document).
            return operation;
        }

        if (classified.Target.Kind == PatchPathKind.Selected)
        {
            int index = classified.Target.RuleIndex;
            string cell = JTokenValueCodec.Encrypt(value, key, plan, index, binding);
            encrypted[index] = true;
            return WithValue(operation, cell);
        }

        // An ancestor: wrapped so that a selected child can be replaced in place by its cell.
        var holder = new JArray(value);
        JNestedCrypto.Encrypt(holder[0], classified.Target.Node!, key, plan, encrypted, binding);
        var json = new MemoryStream();
        using (var buffer = new PooledBufferWriter())
        {
            JObjectReader.WriteUtf8(holder[0], buffer);
            json.Write(buffer.WrittenSpan);
        }

        json.Position = 0;
        return WithValue<Stream>(operation, json);
    }

    /// <summary>The operation's value as the client's serializer writes it, parsed as the Newtonsoft processor parses documents.</summary>
    internal static JToken ReadValue(PatchOperation operation, CosmosSerializer serializer, int maxDepth, string? keyId)
    {
        if (!operation.TrySerializeValueParameter(serializer, out Stream? valueStream) || valueStream is null)
        {
            throw new EncryptionException(EncryptionErrorKind.InvalidOptions, $"The patch operation on '{operation.Path}' carries no value.", keyId, operation.Path);
        }

        PooledBufferWriter json;
        using (valueStream)
        {
            json = PatchValueEncryptor.ReadJson(valueStream);
        }

        try
        {
            return JObjectReader.TryParseValue(json.WrittenSpan, maxDepth, levels: 0) ?? throw PatchErrors.NotJson(operation.Path, keyId);
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

/// <summary>What <see cref="NestedPatchRewriter"/> decided: the operations to send, or why a conditional replace is needed.</summary>
internal sealed class NestedPatchResult
{
    private NestedPatchResult(IReadOnlyList<PatchOperation>? operations, string? replaceReason)
    {
        Operations = operations;
        ReplaceReason = replaceReason;
    }

    /// <summary>The operations to send (<see langword="null"/> when a replace is needed).</summary>
    public IReadOnlyList<PatchOperation>? Operations { get; }

    /// <summary>Why the patch must be applied as a conditional replace, or <see langword="null"/>.</summary>
    public string? ReplaceReason { get; }

    public static NestedPatchResult Send(IReadOnlyList<PatchOperation> operations) => new(operations, null);

    public static NestedPatchResult Replace(string reason) => new(null, reason);
}
