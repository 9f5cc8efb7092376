namespace Encryption.Custom.Json.Rules;

/// <summary>How a property name meets a policy path's name (<see cref="PolicyRuleSet.Match(string, out PathRule?)"/>).</summary>
internal enum NameMatch
{
    /// <summary>No policy path has the name, even ignoring case.</summary>
    None = 0,

    /// <summary>The name is a policy path's name, exactly.</summary>
    Exact,

    /// <summary>
    /// The name equals a policy path's name only when case is ignored: serializers bind it to the same member
    /// (Newtonsoft, System.Text.Json's case-insensitive option), so its value is treated as the path's.
    /// </summary>
    CaseVariant,
}
