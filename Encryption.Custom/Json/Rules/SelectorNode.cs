using Encryption.Custom.Json.Text;

namespace Encryption.Custom.Json.Rules;

/// <summary>
/// One level of the selector tree a policy (or a document's <c>_ep</c>) compiles into: the root stands for the
/// document, each child for a property name or for the array wildcard <c>[]</c>, and each leaf for one selector
/// (its <see cref="RuleIndex"/>). Walking a document against the tree finds every selected value in one pass, with
/// one O(1) lookup per property name, whatever the number of selectors.
/// </summary>
/// <remarks>
/// Immutable once built (<see cref="SelectorTreeBuilder"/>); lookups allocate nothing and are safe from many threads.
/// The builder refuses selectors that overlap (one a prefix of another) and sibling names that differ only in case,
/// so a name matches at most one child, exactly or ignoring case.
/// </remarks>
internal sealed class SelectorNode
{
    private static readonly SelectorNode[] s_noChildren = [];

    private readonly SelectorNode[] _children;
    private readonly string[] _childNames;
    private readonly Utf8NameTable? _utf8Names;
    private readonly Dictionary<string, int>? _names;
    private readonly CaseInsensitiveNameIndex? _namesIgnoringCase;

    internal SelectorNode(int ruleIndex, string[] childNames, SelectorNode[] children, SelectorNode? elements)
    {
        RuleIndex = ruleIndex;
        Elements = elements;
        FirstRuleIndex = ruleIndex >= 0 ? ruleIndex : children.Length > 0 ? children[0].FirstRuleIndex : elements?.FirstRuleIndex ?? -1;
        _childNames = childNames;
        _children = children.Length == 0 ? s_noChildren : children;
        if (childNames.Length > 0)
        {
            _utf8Names = new Utf8NameTable();
            _names = new Dictionary<string, int>(childNames.Length, StringComparer.Ordinal);
            for (int i = 0; i < childNames.Length; i++)
            {
                _utf8Names.Add(System.Text.Encoding.UTF8.GetBytes(childNames[i]));
                _names.Add(childNames[i], i);
            }

            _namesIgnoringCase = new CaseInsensitiveNameIndex(childNames);
        }
    }

    /// <summary>The selector this node ends (its index among the paths), or -1 for a node selectors pass through.</summary>
    public int RuleIndex { get; }

    /// <summary>A selector that passes through or ends at this node (for messages), or -1 for an empty tree.</summary>
    public int FirstRuleIndex { get; }

    /// <summary>Whether a selector ends here: the value at this position is encrypted as one cell.</summary>
    public bool IsLeaf => RuleIndex >= 0;

    /// <summary>The node every element of an array at this position continues at (<c>[]</c>), or null.</summary>
    public SelectorNode? Elements { get; }

    /// <summary>The number of named children.</summary>
    public int ChildCount => _children.Length;

    /// <summary>The named child at <paramref name="index"/>.</summary>
    public SelectorNode GetChild(int index) => _children[index];

    /// <summary>The name of the child at <paramref name="index"/>.</summary>
    public string GetChildName(int index) => _childNames[index];

    /// <summary>The index of the child named exactly <paramref name="utf8Name"/> (unescaped), or -1.</summary>
    public int FindChild(ReadOnlySpan<byte> utf8Name) => _utf8Names is null ? -1 : _utf8Names.Find(utf8Name);

    /// <inheritdoc cref="FindChild(ReadOnlySpan{byte})"/>
    public int FindChild(string name) => _names is not null && _names.TryGetValue(name, out int index) ? index : -1;

    /// <summary>The index of the child whose name equals <paramref name="utf8Name"/> ignoring case (ordinal, as serializers bind), or -1.</summary>
    public int FindChildIgnoringCase(ReadOnlySpan<byte> utf8Name) => _namesIgnoringCase is null ? -1 : _namesIgnoringCase.Find(utf8Name);

    /// <inheritdoc cref="FindChildIgnoringCase(ReadOnlySpan{byte})"/>
    public int FindChildIgnoringCase(string name) => _namesIgnoringCase is null ? -1 : _namesIgnoringCase.Find(name.AsSpan());
}
