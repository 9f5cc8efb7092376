using Encryption.Custom.Json.Rules;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// The paths a patch must treat as encrypted (those the stored document lists, the request's, the
/// policy's), looked up exactly and ignoring case in O(1): a patch of <c>/SSN</c> beside an encrypted <c>/ssn</c>
/// would store plaintext that serializers bind to the same member.
/// </summary>
internal sealed class EncryptedPathSet
{
    private readonly HashSet<string> _paths = new(StringComparer.Ordinal);
    private readonly Dictionary<string, string> _byNameIgnoringCase = new(StringComparer.OrdinalIgnoreCase);

    // Nested selectors (format 101): kept apart, since a patch path is related to them segment by segment.
    private readonly List<RulePath> _nested = [];

    /// <summary>How many paths.</summary>
    public int Count => _paths.Count;

    /// <summary>Adds a path (<c>/name</c>, as <c>_ep</c> and options list it).</summary>
    public void Add(string path)
    {
        if (path.IndexOf('/', 1) > 0 && RulePath.TryParse(path, out RulePath? selector, out _))
        {
            _nested.Add(selector!);
            return;
        }

        if (_paths.Add(path))
        {
            _byNameIgnoringCase.TryAdd(path, path);
        }
    }

    /// <summary>Whether nested selectors were added.</summary>
    public bool HasNested => _nested.Count > 0;

    /// <summary>
    /// The nested selector <paramref name="path"/> is, contains or lies inside (segments compared ignoring case, an
    /// array index meeting <c>[]</c>), or <see langword="null"/>; also <see langword="null"/> for a path that does not parse.
    /// </summary>
    public string? FindRelatedSelector(string? path)
    {
        if (_nested.Count == 0 || !RulePath.TryParse(path, out RulePath? parsed, out _))
        {
            return null;
        }

        foreach (RulePath selector in _nested)
        {
            if (parsed!.RelateTo(selector, StringComparison.OrdinalIgnoreCase) != PathRelation.Unrelated)
            {
                return selector.Text;
            }
        }

        return null;
    }

    /// <summary>Whether <paramref name="path"/> is one of the paths, exactly.</summary>
    public bool Contains(string path) => _paths.Contains(path);

    /// <summary>The path equal to <paramref name="path"/> ignoring case (itself when listed exactly), or <see langword="null"/>.</summary>
    public string? FindIgnoringCase(string path) =>
        _paths.Contains(path) ? path : _byNameIgnoringCase.GetValueOrDefault(path);
}
