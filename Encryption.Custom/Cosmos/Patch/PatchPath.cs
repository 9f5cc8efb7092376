namespace Encryption.Custom.Cosmos.Patch;

/// <summary>Reads the top-level property a patch path (a JSON Pointer such as <c>/address/city</c>) addresses.</summary>
internal static class PatchPath
{
    /// <summary>
    /// The top-level property as an encryption path in both readings a service may give it: with JSON Pointer
    /// escapes undone (<c>~1</c> is <c>/</c>, <c>~0</c> is <c>~</c>, as Azure Cosmos DB documents), and literally
    /// (as the bundled endpoint, and Microsoft's package when it compares paths, read it); and whether the path
    /// goes deeper than that property.
    /// </summary>
    /// <returns><see langword="false"/> when <paramref name="path"/> is not a pointer to a property (empty, no leading <c>/</c>).</returns>
    public static bool TryGetTopLevel(string? path, out string decoded, out string literal, out bool isNested)
    {
        decoded = literal = string.Empty;
        isNested = false;
        if (string.IsNullOrEmpty(path) || path[0] != '/' || path.Length == 1)
        {
            return false;
        }

        int end = path.IndexOf('/', 1);
        isNested = end >= 0;
        string segment = end < 0 ? path[1..] : path[1..end];
        literal = "/" + segment;
        decoded = segment.Contains('~', StringComparison.Ordinal)
            ? "/" + segment.Replace("~1", "/", StringComparison.Ordinal).Replace("~0", "~", StringComparison.Ordinal)
            : literal;
        return true;
    }
}
