using System.Text.RegularExpressions;
using Encryption.Custom.Cosmos.Queries.Analysis;
using Encryption.Custom.Json.Rules;

namespace Encryption.Custom.Cosmos.Queries;

/// <summary>
/// What the query guard needs to know of the container's policy, in one place: where a document path stands
/// against the policy's selectors (a name equal to a selector's name ignoring case counts as that name, as
/// serializers bind it), how each selector is encrypted, under which keys, and what a returned row must carry to
/// be decrypted. The only type of the query half that reads the policy, so the rule set behind it can change
/// without touching the parser or the analyzer. Paths are walked on the policy's own selector tree
/// (<see cref="SelectorNode"/>): there is no second path model.
/// </summary>
internal sealed class QueryPolicyPaths
{
    private readonly ContainerEncryptionPolicy _policy;

    public QueryPolicyPaths(ContainerEncryptionPolicy policy) => _policy = policy;

    /// <summary>How many selectors the policy has (top-level and nested).</summary>
    public int PathCount => _policy.Plan.PathCount;

    /// <summary>The policy's algorithm (in messages).</summary>
    public string EncryptionAlgorithm => _policy.EncryptionAlgorithm;

    /// <summary>Every key a stored value may be under, the current one first.</summary>
    public IEnumerable<string> ReadableKeyIds => _policy.ReadableKeyIds;

    /// <summary>
    /// The index of the policy path whose property name equals <paramref name="name"/> ignoring case, or -1. A name
    /// nested selectors start at (<c>address</c> of <c>/address/city</c>) gives the first of them.
    /// </summary>
    public int Find(string name)
    {
        int index = _policy.Plan.FindPathIgnoringCase(name);
        if (index >= 0)
        {
            return index;
        }

        SelectorNode nested = _policy.Plan.NestedSelectors;
        int child = nested.FindChildIgnoringCase(name);
        return child >= 0 ? nested.GetChild(child).FirstRuleIndex : -1;
    }

    /// <summary>The index of the selector written exactly as <paramref name="path"/> (top-level or nested), or -1.</summary>
    public int IndexOf(string path) => _policy.Plan.IndexOf(path);

    /// <summary>The path, for example <c>/ssn</c>.</summary>
    public string GetPath(int index) => _policy.Plan.GetPath(index);

    /// <summary>
    /// Whether the selector is encrypted deterministically, top-level or nested. Its cells are never bound, even
    /// under a policy that binds (wire-format.md "Bound cells"), so equal values are equal ciphertexts in every document.
    /// </summary>
    public bool IsDeterministic(int index) => _policy.Plan.IsDeterministic(index);

    /// <summary>Whether a returned row needs the anchor <c>_ex</c> beside <c>_ei</c> to be decrypted (documents are written in format 101).</summary>
    public bool RequiresAnchor => _policy.Plan.IsExtendedFormat || _policy.Rules.Binds;

    /// <summary>Whether a returned row needs the document's id (and partition key) to be decrypted: its cells are bound to them.</summary>
    public bool RequiresId => _policy.Rules.Binds;

    /// <summary>Whether a row must carry <c>_q</c> too (a policy with range or prefix declarations: its documents require their tokens).</summary>
    public bool RequiresQueryTokens => _policy.Plan.HasQueryTokens;

    /// <summary>Whether each document's anchor commits to which cells it holds (format 101 commitment, docs/policy.md).</summary>
    public bool Commits => _policy.Rules.Commits;

    /// <summary>The top-level property names the policy encrypts at or below (<c>ssn</c>, <c>address</c>), each once.</summary>
    public IEnumerable<string> TopLevelNames => Enumerable.Range(0, PathCount).Select(GetTopLevelName).Distinct(StringComparer.OrdinalIgnoreCase);

    /// <summary>The top-level property name the selector at <paramref name="index"/> starts at (<c>address</c> of <c>/address/city</c>).</summary>
    public string GetTopLevelName(int index) => _policy.Plan.GetRulePath(index).PropertyName;

    /// <summary>
    /// Where <paramref name="steps"/>, a path from the document root, stands against the selectors: walked on the
    /// policy's selector tree, a property name matching a child ignoring case, an array element matching <c>[]</c>.
    /// </summary>
    public PolicyPosition Classify(IReadOnlyList<PathStep> steps)
    {
        if (steps.Count == 0)
        {
            return new PolicyPosition(PolicyPositionKind.Holds, 0);
        }

        PathStep first = steps[0];
        if (first.IsComputed)
        {
            return new PolicyPosition(PolicyPositionKind.Computed, 0);
        }

        if (first.Name is null)
        {
            return PolicyPosition.Plain; // an element of the document, which is an object: nothing there
        }

        int topLevel = _policy.Plan.FindPathIgnoringCase(first.Name);
        if (topLevel >= 0)
        {
            return new PolicyPosition(steps.Count == 1 ? PolicyPositionKind.Cell : PolicyPositionKind.Inside, topLevel);
        }

        SelectorNode roots = _policy.Plan.NestedSelectors;
        int child = roots.FindChildIgnoringCase(first.Name);
        if (child < 0)
        {
            return PolicyPosition.Plain;
        }

        SelectorNode node = roots.GetChild(child);
        for (int i = 1; i < steps.Count; i++)
        {
            if (node.IsLeaf)
            {
                return new PolicyPosition(PolicyPositionKind.Inside, node.RuleIndex);
            }

            PathStep step = steps[i];
            SelectorNode? next;
            if (step.IsComputed)
            {
                return new PolicyPosition(PolicyPositionKind.Computed, node.FirstRuleIndex);
            }
            else if (step.Name is null)
            {
                next = node.Elements;
            }
            else
            {
                int index = node.FindChildIgnoringCase(step.Name);
                next = index < 0 ? null : node.GetChild(index);
            }

            if (next is null)
            {
                return PolicyPosition.Plain; // a property or element no selector names: plaintext
            }

            node = next;
        }

        return node.IsLeaf ? new PolicyPosition(PolicyPositionKind.Cell, node.RuleIndex) : new PolicyPosition(PolicyPositionKind.Holds, node.FirstRuleIndex);
    }

    /// <summary>
    /// The first selector that has a segment named <paramref name="name"/> ignoring case, or -1: for values the
    /// analyzer cannot trace to the document, any such name may be that selector's value.
    /// </summary>
    public int FindSegment(string name)
    {
        for (int i = 0; i < PathCount; i++)
        {
            foreach (string segment in _policy.Plan.GetRulePath(i).Segments)
            {
                if (segment != RulePath.ArrayWildcard && segment.Equals(name, StringComparison.OrdinalIgnoreCase))
                {
                    return i;
                }
            }
        }

        return -1;
    }

    /// <summary>The path's deterministic IV prefix (empty when randomized).</summary>
    public ReadOnlySpan<byte> GetDeterministicPrefix(int index) => _policy.Plan.GetDeterministicPrefix(index);

    /// <summary>The first policy path whose property name <paramref name="text"/> holds anywhere, ignoring case, or <see langword="null"/> (for text that cannot be parsed).</summary>
    public string? FindMentioned(string text)
    {
        // A name may hide behind string escapes (c["\u0073sn"]): look at the text with escapes decoded too.
        string? found = Mentions(text);
        if (found is not null || !text.Contains('\\', StringComparison.Ordinal))
        {
            return found;
        }

        try
        {
            return Mentions(Regex.Unescape(text));
        }
        catch (ArgumentException)
        {
            return GetPath(0); // escapes that cannot be read could spell anything
        }
    }

    private string? Mentions(string text)
    {
        for (int i = 0; i < PathCount; i++)
        {
            // A nested selector is mentioned where its first segment is.
            if (text.AsSpan().Contains(GetTopLevelName(i), StringComparison.OrdinalIgnoreCase))
            {
                return _policy.Plan.GetPath(i);
            }
        }

        return null;
    }
}
