namespace Encryption.Custom.Json.Rules;

/// <summary>How one <see cref="RulePath"/> relates to another (<see cref="RulePath.RelateTo(RulePath, StringComparison)"/>).</summary>
internal enum PathRelation
{
    /// <summary>Neither contains the other.</summary>
    Unrelated = 0,

    /// <summary>The same path.</summary>
    Same,

    /// <summary>This path contains the other (writing it replaces the other).</summary>
    Ancestor,

    /// <summary>This path lies inside the other.</summary>
    Descendant,
}
