using System.Text.RegularExpressions;

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

    /// <summary>The index of the policy path whose property name equals <paramref name="name"/> ignoring case, or -1.</summary>
    public int Find(string name) => _policy.Plan.FindPathIgnoringCase(name);

    /// <summary>The path, for example <c>/ssn</c>.</summary>
    public string GetPath(int index) => _policy.Plan.GetPath(index);

    /// <summary>Whether the path is encrypted deterministically.</summary>
    public bool IsDeterministic(int index) => _policy.Plan.IsDeterministic(index);

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
            if (text.AsSpan().Contains(_policy.Plan.GetPath(i).AsSpan(1), StringComparison.OrdinalIgnoreCase))
            {
                return _policy.Plan.GetPath(i);
            }
        }

        return null;
    }
}
