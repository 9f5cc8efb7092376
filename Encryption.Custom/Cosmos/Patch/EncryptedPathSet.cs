namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// The top-level paths a patch must treat as encrypted (those the stored document lists, the request's, the
/// policy's), looked up exactly and ignoring case in O(1): a patch of <c>/SSN</c> beside an encrypted <c>/ssn</c>
/// would store plaintext that serializers bind to the same member.
/// </summary>
internal sealed class EncryptedPathSet
{
    private readonly HashSet<string> _paths = new(StringComparer.Ordinal);
    private readonly Dictionary<string, string> _byNameIgnoringCase = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>How many paths.</summary>
    public int Count => _paths.Count;

    /// <summary>Adds a path (<c>/name</c>, as <c>_ep</c> and options list it).</summary>
    public void Add(string path)
    {
        if (_paths.Add(path))
        {
            _byNameIgnoringCase.TryAdd(path, path);
        }
    }

    /// <summary>Whether <paramref name="path"/> is one of the paths, exactly.</summary>
    public bool Contains(string path) => _paths.Contains(path);

    /// <summary>The path equal to <paramref name="path"/> ignoring case (itself when listed exactly), or <see langword="null"/>.</summary>
    public string? FindIgnoringCase(string path) =>
        _paths.Contains(path) ? path : _byNameIgnoringCase.GetValueOrDefault(path);
}
