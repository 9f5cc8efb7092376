using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// Classifies every operation of a patch against the paths of an encryption plan, top-level and nested, of any
/// format: the plan a request writes (before anything is read or sent), and for a format 3 document also the paths
/// it lists (once it is read, <see cref="PatchRewriter"/>). Refuses what no rewrite can make right: a path inside a
/// cell, a case variant of an encrypted name, an increment of an encrypted value, the metadata or anchor, an escape
/// read two ways, and under binding a change of the document id or partition key (every bound cell's tag covers them).
/// </summary>
internal static class PatchClassifier
{
    /// <summary>Classifies <paramref name="operations"/>; one entry per operation, in order.</summary>
    /// <param name="operations">The caller's operations.</param>
    /// <param name="selectors">
    /// The paths to classify against, or <see langword="null"/> when nothing is known to be encrypted yet (no options):
    /// then only the checks every patch gets (a pointer, no empty or <c>[]</c> segment, not the metadata).
    /// </param>
    /// <exception cref="EncryptionException">An operation is refused (<see cref="EncryptionErrorKind.InvalidOptions"/>, naming the path and why).</exception>
    public static ClassifiedOperation[] Classify(IReadOnlyList<PatchOperation> operations, PatchSelectors? selectors)
    {
        var classified = new ClassifiedOperation[operations.Count];
        for (int i = 0; i < operations.Count; i++)
        {
            PatchOperation operation = operations[i];
            ArgumentNullException.ThrowIfNull(operation);
            PatchPathClass target = ClassifyPath(operation.Path, selectors);
            PatchPathClass from = operation.OperationType == PatchOperationType.Move
                ? ClassifyPath(operation.From, selectors)
                : default;
            if (operation.OperationType == PatchOperationType.Increment && target.Kind == PatchPathKind.Selected)
            {
                throw PatchErrors.Increment(operation.Path, selectors!.Plan.DataEncryptionKeyId);
            }

            classified[i] = new ClassifiedOperation(operation, target, from);
        }

        return classified;
    }

    private static PatchPathClass ClassifyPath(string? path, PatchSelectors? selectors)
    {
        if (!RulePath.TryParse(path, out RulePath? parsed, out _))
        {
            throw PatchErrors.InvalidPath(path);
        }

        if (parsed!.HasEmptySegment)
        {
            throw PatchErrors.EmptySegment(path!);
        }

        if (parsed.Segments.Contains(RulePath.ArrayWildcard))
        {
            // '[]' is the selectors' wildcard, not a JSON Pointer segment: a patch names one element by its index.
            throw PatchErrors.WildcardSegment(path!);
        }

        // The service decodes ~0/~1; the bundled endpoint and Microsoft's package read names literally.
        string[] literal = path![1..].Split('/');
        CheckReserved(parsed.PropertyName, path, selectors?.Plan);
        CheckReserved(literal[0], path, selectors?.Plan);
        if (selectors is null)
        {
            return default;
        }

        EncryptionPlan plan = selectors.Plan;
        PatchPathClass decoded = selectors.Classify(parsed.Segments);
        if (parsed.HasEscapes && (decoded.Kind != PatchPathKind.Unrelated || selectors.Classify(literal).Kind != PatchPathKind.Unrelated))
        {
            throw PatchErrors.AmbiguousEscape(path, plan.DataEncryptionKeyId);
        }

        switch (decoded.Kind)
        {
            case PatchPathKind.InsideCell:
                throw PatchErrors.InsideCell(path, plan.GetPath(decoded.RuleIndex), plan.DataEncryptionKeyId);
            case PatchPathKind.CaseVariant:
                throw PatchErrors.SelectorCaseVariant(path, plan.GetPath(decoded.RuleIndex), plan.DataEncryptionKeyId);
        }

        if (plan.Binding is { } binding && BindsTo(parsed.PropertyName, binding))
        {
            // Refused before the document is read: a later read would fail with CellBindingMismatch.
            throw PatchErrors.BoundIdentity(path, plan.DataEncryptionKeyId);
        }

        return decoded;
    }

    private static void CheckReserved(string name, string path, EncryptionPlan? plan)
    {
        if (plan is { HasQueryTokens: true } && name == Json.Tokens.QueryTokenRule.MemberName)
        {
            throw PatchErrors.QueryTokens(path);
        }

        if (name == EncryptionEnvelope.PropertyName)
        {
            throw PatchErrors.Metadata(path);
        }

        if (plan is { IsExtendedFormat: true } && name == EncryptionEnvelope.AnchorName)
        {
            throw PatchErrors.Anchor(path);
        }
    }

    // Partition-key paths of a binding container are top-level properties (policy.md, "Binding").
    private static bool BindsTo(string propertyName, BindingTarget binding)
    {
        if (propertyName == "id")
        {
            return true;
        }

        for (int i = 0; i < binding.PartitionKeyCount; i++)
        {
            if (binding.GetPartitionKeyPath(i).AsSpan(1).Equals(propertyName, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }
}

/// <summary>One patch operation and where its path (and, for a move, its source) stands against the selectors.</summary>
/// <param name="Operation">The caller's operation.</param>
/// <param name="Target">Its path's classification.</param>
/// <param name="From">A move's source classification (default for other operations).</param>
internal readonly record struct ClassifiedOperation(PatchOperation Operation, PatchPathClass Target, PatchPathClass From)
{
    /// <summary>Whether the operation writes a value where a selector encrypts (exactly a selected value, or one holding selected values).</summary>
    public bool WritesEncryptedValue =>
        Operation.OperationType is PatchOperationType.Set or PatchOperationType.Add or PatchOperationType.Replace
        && Target.Kind is PatchPathKind.Selected or PatchPathKind.Ancestor;

    /// <summary>Whether the operation's path (or a move's source) is or holds an encrypted value.</summary>
    public bool Touches =>
        Target.Kind is PatchPathKind.Selected or PatchPathKind.Ancestor || From.Kind is PatchPathKind.Selected or PatchPathKind.Ancestor;

    /// <summary>Whether a move carries or overwrites encrypted values (their selector, hence their binding, would change).</summary>
    public bool MovesEncryptedValue =>
        Operation.OperationType == PatchOperationType.Move
        && (Target.Kind is PatchPathKind.Selected or PatchPathKind.Ancestor || From.Kind is PatchPathKind.Selected or PatchPathKind.Ancestor);
}
