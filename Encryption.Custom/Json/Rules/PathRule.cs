namespace Encryption.Custom.Json.Rules;

/// <summary>
/// What a compiled policy says about one path: where it is (<see cref="Path"/>), how its values are encrypted, and
/// (on the rule set) which keys they may be encrypted with. One rule per policy path, in the policy's order.
/// </summary>
/// <param name="Index">The rule's position in its <see cref="PolicyRuleSet"/> (and in the compiled plan).</param>
/// <param name="Path">The parsed path.</param>
/// <param name="IsDeterministic">Whether values are encrypted deterministically (else randomized).</param>
internal sealed record PathRule(int Index, RulePath Path, bool IsDeterministic)
{
    /// <summary>The path's range or prefix declaration, compiled, or <see langword="null"/> (docs/queries.md "Range and prefix queries").</summary>
    public Tokens.QueryTokenRule? QueryTokens { get; init; }

    /// <summary>The path as written in the policy (for example <c>/ssn</c>), which is also how <c>_ep</c> lists it.</summary>
    public string Text => Path.Text;

    /// <summary>The top-level property name the rule matches.</summary>
    public string PropertyName => Path.PropertyName;
}
