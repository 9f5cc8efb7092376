using System.Text;

namespace Encryption.Custom.Json.Rules;

/// <summary>
/// A path parsed once, as Azure Cosmos DB parses paths (RFC 6901 JSON Pointer): <c>/</c>-separated segments, each
/// with <c>~1</c> decoded to <c>/</c> and <c>~0</c> to <c>~</c>. The one path model of policies and patches, so
/// both agree on which property a path names. A segment <c>[]</c> is kept as written: it is the array wildcard that
/// nested selectors will use (docs/policy.md), which policies do not accept yet.
/// </summary>
/// <remarks>Immutable. Parsing never throws: a path that is not a pointer gives a reason instead.</remarks>
internal sealed class RulePath
{
    /// <summary>The array wildcard segment (reserved for nested selectors).</summary>
    public const string ArrayWildcard = "[]";

    private readonly string[] _segments;

    private RulePath(string text, string[] segments, bool hasEscapes)
    {
        Text = text;
        _segments = segments;
        HasEscapes = hasEscapes;
    }

    /// <summary>The path as written.</summary>
    public string Text { get; }

    /// <summary>The number of segments (1 for a top-level property).</summary>
    public int Depth => _segments.Length;

    /// <summary>The decoded segments, outermost first.</summary>
    public IReadOnlyList<string> Segments => _segments;

    /// <summary>The top-level property the path starts at (its first segment, decoded).</summary>
    public string PropertyName => _segments[0];

    /// <summary>Whether a segment used <c>~0</c> or <c>~1</c> (readers that take names literally read it differently).</summary>
    public bool HasEscapes { get; }

    /// <summary>Whether a segment is empty (<c>//ssn</c>, a trailing <c>/</c>).</summary>
    public bool HasEmptySegment => Array.IndexOf(_segments, string.Empty) >= 0;

    /// <summary>The canonical text: each decoded segment re-escaped, so two spellings of one path compare equal.</summary>
    public string Canonical
    {
        get
        {
            var text = new StringBuilder();
            foreach (string segment in _segments)
            {
                text.Append('/').Append(segment.Replace("~", "~0", StringComparison.Ordinal).Replace("/", "~1", StringComparison.Ordinal));
            }

            return text.ToString();
        }
    }

    /// <summary>Parses <paramref name="text"/>.</summary>
    /// <param name="text">A JSON Pointer to a property: <c>/</c> followed by segments.</param>
    /// <param name="path">The parsed path, or <see langword="null"/>.</param>
    /// <param name="reason">Why the text is not a path (for a message), or <see langword="null"/>.</param>
    public static bool TryParse(string? text, out RulePath? path, out string? reason)
    {
        path = null;
        if (string.IsNullOrEmpty(text) || text == "/")
        {
            reason = "a path must be '/' followed by a property name.";
            return false;
        }

        if (text[0] != '/')
        {
            reason = "a path must start with '/'.";
            return false;
        }

        string[] raw = text[1..].Split('/');
        bool escapes = false;
        for (int i = 0; i < raw.Length; i++)
        {
            string segment = raw[i];
            int tilde = segment.IndexOf('~', StringComparison.Ordinal);
            if (tilde < 0)
            {
                continue;
            }

            var decoded = new StringBuilder(segment.Length);
            for (int c = 0; c < segment.Length; c++)
            {
                if (segment[c] != '~')
                {
                    decoded.Append(segment[c]);
                    continue;
                }

                if (c + 1 == segment.Length || (segment[c + 1] != '0' && segment[c + 1] != '1'))
                {
                    reason = "'~' must be followed by '0' or '1' (JSON Pointer escapes).";
                    return false;
                }

                decoded.Append(segment[c + 1] == '0' ? '~' : '/');
                c++;
            }

            raw[i] = decoded.ToString();
            escapes = true;
        }

        reason = null;
        path = new RulePath(text, raw, escapes);
        return true;
    }

    /// <summary>
    /// How this path relates to <paramref name="other"/>, comparing decoded segments ordinally: the same path,
    /// an ancestor of it (a patch of <c>/address</c> replaces <c>/address/city</c>), a descendant, or unrelated.
    /// </summary>
    public PathRelation RelateTo(RulePath other) => RelateTo(other, StringComparison.Ordinal);

    /// <summary>
    /// As <see cref="RelateTo(RulePath)"/>, comparing names with <paramref name="comparison"/>; the array wildcard
    /// <c>[]</c> on either side meets any array index (<c>0</c>, <c>17</c>, <c>-</c>) and itself, so
    /// <c>/cards/0/number</c> is the same position as <c>/cards/[]/number</c>.
    /// </summary>
    public PathRelation RelateTo(RulePath other, StringComparison comparison)
    {
        int common = Math.Min(Depth, other.Depth);
        for (int i = 0; i < common; i++)
        {
            if (!SegmentsMeet(_segments[i], other._segments[i], comparison))
            {
                return PathRelation.Unrelated;
            }
        }

        return Depth == other.Depth ? PathRelation.Same : Depth < other.Depth ? PathRelation.Ancestor : PathRelation.Descendant;
    }

    private static bool SegmentsMeet(string left, string right, StringComparison comparison)
    {
        if (string.Equals(left, right, comparison))
        {
            return true;
        }

        return (left == ArrayWildcard && (right == ArrayWildcard || SelectorRules.IsArrayIndex(right)))
            || (right == ArrayWildcard && SelectorRules.IsArrayIndex(left));
    }

    /// <inheritdoc/>
    public override string ToString() => Text;
}
