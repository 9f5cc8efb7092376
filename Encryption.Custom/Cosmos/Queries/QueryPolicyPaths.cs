using System.Text.RegularExpressions;
using Encryption.Custom.Json.Rules;

namespace Encryption.Custom.Cosmos.Queries;

/// <summary>
/// What the query guard needs to know of the container's policy, in one place: which top-level names are policy
/// paths (a name equal to a policy property name ignoring case counts as that path, as serializers bind it), how
/// each is encrypted, and under which keys. The only type of the query half that reads the policy, so the rule
/// set behind it can change without touching the parser or the analyzer.
/// </summary>
internal sealed class QueryPolicyPaths
{
    private readonly ContainerEncryptionPolicy _policy;

    public QueryPolicyPaths(ContainerEncryptionPolicy policy)
    {
        _policy = policy;
    }

    /// <summary>The policy's algorithm (in messages).</summary>
    public string EncryptionAlgorithm => _policy.EncryptionAlgorithm;

    /// <summary>Every key a stored value may be under, the current one first.</summary>
    public IEnumerable<string> ReadableKeyIds => _policy.ReadableKeyIds;

    /// <summary>
    /// The index of the policy path whose property name equals <paramref name="name"/> ignoring case, or -1. A name
    /// nested selectors start at (<c>address</c> of <c>/address/city</c>) counts as the first of them: until queries
    /// on nested values are classified, the whole top-level value is guarded as if it were encrypted, so every use
    /// the guard does not prove harmless is refused.
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

    /// <summary>The path, for example <c>/ssn</c>.</summary>
    public string GetPath(int index) => _policy.Plan.GetPath(index);

    /// <summary>Whether the path is encrypted deterministically (never for a nested selector: its top-level value is not one cell).</summary>
    public bool IsDeterministic(int index) => index < _policy.Plan.TopLevelCount && _policy.Plan.IsDeterministic(index);

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
        for (int i = 0; i < _policy.Plan.PathCount; i++)
        {
            // A nested selector is mentioned where its first segment is.
            string path = _policy.Plan.GetPath(i);
            int slash = path.IndexOf('/', 1);
            if (text.AsSpan().Contains(slash < 0 ? path.AsSpan(1) : path.AsSpan(1, slash - 1), StringComparison.OrdinalIgnoreCase))
            {
                return _policy.Plan.GetPath(i);
            }
        }

        return null;
    }
}
