using Encryption.Custom.Json.Rules;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// Reads the top-level property a patch path (a JSON Pointer such as <c>/address/city</c>) addresses, on the one
/// path model policies use (<see cref="RulePath"/>).
/// </summary>
internal static class PatchPath
{
    /// <summary>
    /// The top-level property as an encryption path in both readings a service may give it: with JSON Pointer
    /// escapes undone (<c>~1</c> is <c>/</c>, <c>~0</c> is <c>~</c>, as Azure Cosmos DB documents), and literally
    /// (as the bundled endpoint, and Microsoft's package when it compares paths, read it); whether the path goes
    /// deeper than that property; and whether a segment is empty (<c>//ssn</c>), which services read differently.
    /// </summary>
    /// <returns><see langword="false"/> when <paramref name="path"/> is not a pointer to a property (empty, no leading <c>/</c>, a bad escape).</returns>
    public static bool TryGetTopLevel(string? path, out string decoded, out string literal, out bool isNested, out bool hasEmptySegment)
    {
        decoded = literal = string.Empty;
        isNested = hasEmptySegment = false;
        if (!RulePath.TryParse(path, out RulePath? parsed, out _))
        {
            return false;
        }

        int end = path!.IndexOf('/', 1);
        literal = end < 0 ? path : path[..end];
        decoded = "/" + parsed!.PropertyName;
        isNested = parsed.Depth > 1;
        hasEmptySegment = parsed.HasEmptySegment;
        return true;
    }

    /// <inheritdoc cref="TryGetTopLevel(string?, out string, out string, out bool, out bool)"/>
    public static bool TryGetTopLevel(string? path, out string decoded, out string literal, out bool isNested) =>
        TryGetTopLevel(path, out decoded, out literal, out isNested, out _);
}
