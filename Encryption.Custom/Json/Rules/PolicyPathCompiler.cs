namespace Encryption.Custom.Json.Rules;

/// <summary>
/// Parses and validates a policy's paths into <see cref="PathRule"/>s, once, with the rules every enforcement point
/// relies on (docs/policy.md): top-level properties only (nested selectors are not supported yet), no JSON Pointer
/// escapes, and no two paths whose names differ only in case.
/// </summary>
internal static class PolicyPathCompiler
{
    /// <summary>Compiles <paramref name="paths"/> (with whether each is deterministic) into rules, in order.</summary>
    /// <exception cref="EncryptionException">A path is invalid (<see cref="EncryptionErrorKind.InvalidOptions"/>, naming it).</exception>
    public static PathRule[] Compile(IReadOnlyList<(string Path, bool Deterministic)> paths)
    {
        var rules = new PathRule[paths.Count];
        var names = new Dictionary<string, string>(paths.Count, StringComparer.OrdinalIgnoreCase);
        for (int i = 0; i < paths.Count; i++)
        {
            string text = paths[i].Path;
            if (!RulePath.TryParse(text, out RulePath? path, out string? reason))
            {
                JsonErrors.ThrowInvalidPath(text, reason!);
            }

            if (path!.HasEscapes)
            {
                // Azure Cosmos DB decodes ~0/~1 while Microsoft's package and _ep readers take names literally: the
                // two would name different properties, so a policy path must not depend on which reading applies.
                JsonErrors.ThrowInvalidPath(text, "a policy path must not use JSON Pointer escapes (~0, ~1): readers differ on whether they are decoded.");
            }

            if (path.Depth > 1 || path.PropertyName == RulePath.ArrayWildcard)
            {
                JsonErrors.ThrowInvalidPath(text, "only top-level properties can be encrypted (no nested paths).");
            }

            if (!names.TryAdd(path.PropertyName, text) && !string.Equals(names[path.PropertyName], text, StringComparison.Ordinal))
            {
                JsonErrors.ThrowInvalidPath(text, $"it differs from '{names[path.PropertyName]}' only in case, and serializers bind both names to the same member.");
            }

            rules[i] = new PathRule(i, path, paths[i].Deterministic);
        }

        return rules;
    }
}
