using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Rules;

/// <summary>
/// Parses and validates a policy's selectors into <see cref="PathRule"/>s, once, with the rules every enforcement
/// point relies on (docs/policy.md, "Selectors"): <see cref="SelectorRules"/> for each selector, and
/// <see cref="SelectorTreeBuilder"/> across them (no repeats or overlaps, no two names differing only in case).
/// </summary>
internal static class PolicyPathCompiler
{
    /// <summary>
    /// Compiles <paramref name="paths"/> (with whether each is deterministic) into rules: the top-level paths first,
    /// then the nested selectors, each group in the policy's order (the order of <see cref="EncryptionPlan"/>'s paths).
    /// </summary>
    /// <exception cref="EncryptionException">A path is invalid (<see cref="EncryptionErrorKind.InvalidOptions"/>, naming it).</exception>
    public static PathRule[] Compile(IReadOnlyList<(string Path, bool Deterministic)> paths)
    {
        var rules = new PathRule[paths.Count];
        var tree = new SelectorTreeBuilder();
        int nested = 0;
        for (int i = 0; i < paths.Count; i++)
        {
            RulePath path = SelectorRules.Parse(paths[i].Path);
            if (path.Depth > 1 && ++nested > SelectorRules.MaxNestedSelectors)
            {
                JsonErrors.ThrowInvalidPath(path.Text, $"a policy may list at most {SelectorRules.MaxNestedSelectors} nested selectors.");
            }

            if (path.Text == IdCellText.Path)
            {
                IdCellText.ThrowUnlessDeterministic(paths[i].Deterministic);
            }

            tree.Add(path, i);
            rules[i] = new PathRule(i, path, paths[i].Deterministic);
        }

        // Top-level first, as the compiled plan orders them: rule i is plan path i.
        PathRule[] ordered = [.. rules.Where(r => r.Path.Depth == 1), .. rules.Where(r => r.Path.Depth > 1)];
        for (int i = 0; i < ordered.Length; i++)
        {
            ordered[i] = ordered[i] with { Index = i };
        }

        return ordered;
    }
}
