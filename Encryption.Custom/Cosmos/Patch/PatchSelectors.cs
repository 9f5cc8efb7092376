using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// Classifies patch paths against every path of an encryption plan, top-level and nested, on the plan's own path
/// model: its tree of every path (<see cref="EncryptionPlan.Selectors"/>, leaf = plan path index), the patch path
/// parsed by <see cref="RulePath"/>. An array index (<c>0</c>, <c>17</c>, <c>-</c>) meets the <c>[]</c> segment; a
/// name that meets a selector's name only ignoring case is a <see cref="PatchPathKind.CaseVariant"/>.
/// </summary>
/// <remarks>Immutable; one O(1) lookup per segment. Keeps no index of its own: the plan compiled the tree once.</remarks>
internal sealed class PatchSelectors
{
    private PatchSelectors(EncryptionPlan plan)
    {
        Plan = plan;
        Root = plan.Selectors;
    }

    /// <summary>The plan whose paths are classified against.</summary>
    public EncryptionPlan Plan { get; }

    /// <summary>The tree of the plan's paths (the root stands for the document).</summary>
    public SelectorNode Root { get; }

    /// <summary>The classifier of <paramref name="plan"/>'s paths.</summary>
    public static PatchSelectors For(EncryptionPlan plan) => new(plan);

    /// <summary>Classifies a patch path given as its segments (decoded, or literal: the caller asks for both readings).</summary>
    /// <param name="segments">The path's segments, outermost first (at least one).</param>
    /// <returns>
    /// The kind, the selector node the path reaches (for <see cref="PatchPathKind.Selected"/> and
    /// <see cref="PatchPathKind.Ancestor"/>), and the plan index of a selector it meets (-1 when unrelated), for
    /// encryption and messages.
    /// </returns>
    public PatchPathClass Classify(IReadOnlyList<string> segments)
    {
        SelectorNode node = Root;
        for (int i = 0; i < segments.Count; i++)
        {
            if (node.IsLeaf)
            {
                return new PatchPathClass(PatchPathKind.InsideCell, node, node.RuleIndex);
            }

            string segment = segments[i];
            if (node.Elements is { } elements && SelectorRules.IsArrayIndex(segment))
            {
                node = elements;
                continue;
            }

            int child = node.FindChild(segment);
            if (child >= 0)
            {
                node = node.GetChild(child);
                continue;
            }

            int variant = node.FindChildIgnoringCase(segment);
            return variant >= 0
                ? new PatchPathClass(PatchPathKind.CaseVariant, null, node.GetChild(variant).FirstRuleIndex)
                : new PatchPathClass(PatchPathKind.Unrelated, null, -1);
        }

        return node.IsLeaf
            ? new PatchPathClass(PatchPathKind.Selected, node, node.RuleIndex)
            : new PatchPathClass(PatchPathKind.Ancestor, node, node.FirstRuleIndex);
    }
}

/// <summary>One patch path's classification (<see cref="PatchSelectors.Classify"/>).</summary>
/// <param name="Kind">Where the path stands.</param>
/// <param name="Node">The selector node reached (selected or ancestor), else <see langword="null"/>.</param>
/// <param name="RuleIndex">The plan index of the selector met, or -1 when unrelated.</param>
internal readonly record struct PatchPathClass(PatchPathKind Kind, SelectorNode? Node, int RuleIndex);
