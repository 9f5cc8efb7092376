using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Rules;

/// <summary>
/// Builds the <see cref="SelectorNode"/> tree of a list of validated selectors (<see cref="SelectorRules.Parse"/>),
/// refusing what would make a value's fate ambiguous: a selector listed twice, two selectors where one is a prefix of
/// the other (the inner value would be encrypted twice, or inside a cell), and two names at one level that differ
/// only in case (serializers bind both to the same member). Cost: linear in the total number of segments.
/// </summary>
internal sealed class SelectorTreeBuilder
{
    private readonly Level _root = new();
    private readonly List<string> _texts = [];

    /// <summary>Adds <paramref name="path"/> as selector number <paramref name="ruleIndex"/>.</summary>
    /// <exception cref="EncryptionException">It repeats or overlaps an earlier selector, or differs from one only in case (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    public void Add(RulePath path, int ruleIndex)
    {
        Level level = _root;
        for (int i = 0; i < path.Depth; i++)
        {
            if (level.Rule >= 0)
            {
                ThrowOverlap(path.Text, _texts[level.Rule]);
            }

            level = level.GetOrAdd(path.Segments[i], path.Text);
        }

        if (level.Rule >= 0)
        {
            JsonErrors.ThrowInvalidPath(path.Text, string.Equals(_texts[level.Rule], path.Text, StringComparison.Ordinal)
                ? "it is listed more than once."
                : $"it names the same value as '{_texts[level.Rule]}'.");
        }

        if (level.HasChildren)
        {
            ThrowOverlap(path.Text, level.FirstSelectorBelow(_texts));
        }

        while (_texts.Count <= ruleIndex)
        {
            _texts.Add(string.Empty);
        }

        _texts[ruleIndex] = path.Text;
        level.Rule = ruleIndex;
    }

    /// <summary>The immutable tree.</summary>
    public SelectorNode Build() => _root.Build();

    private static void ThrowOverlap(string path, string other) =>
        JsonErrors.ThrowInvalidPath(path, $"it overlaps '{other}' (one selects a value inside the other): every value is encrypted at most once, so selectors must not contain one another.");

    private sealed class Level
    {
        private readonly List<string> _names = [];
        private readonly List<Level> _children = [];

        // The names of this level ignoring case, with the first selector that used each: two spellings of one name
        // are refused here, at whatever depth.
        private readonly Dictionary<string, (string Name, string Selector, int Index)> _spellings = new(StringComparer.OrdinalIgnoreCase);

        private Level? _elements;

        public int Rule { get; set; } = -1;

        public bool HasChildren => _children.Count > 0 || _elements is not null;

        public Level GetOrAdd(string segment, string selector)
        {
            if (segment == RulePath.ArrayWildcard)
            {
                return _elements ??= new Level();
            }

            if (_spellings.TryGetValue(segment, out (string Name, string Selector, int Index) known))
            {
                if (!string.Equals(known.Name, segment, StringComparison.Ordinal))
                {
                    JsonErrors.ThrowInvalidPath(selector, $"its segment '{segment}' differs from '{known.Name}' in '{known.Selector}' only in case, and serializers bind both names to the same member.");
                }

                return _children[known.Index];
            }

            _spellings.Add(segment, (segment, selector, _names.Count));
            _names.Add(segment);
            var child = new Level();
            _children.Add(child);
            return child;
        }

        public string FirstSelectorBelow(List<string> texts)
        {
            Level level = this;
            while (level.Rule < 0)
            {
                level = level._children.Count > 0 ? level._children[0] : level._elements!;
            }

            return texts[level.Rule];
        }

        public SelectorNode Build() => new(Rule, [.. _names], [.. _children.Select(c => c.Build())], _elements?.Build());
    }
}
