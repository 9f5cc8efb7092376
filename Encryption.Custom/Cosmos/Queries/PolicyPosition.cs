namespace Encryption.Custom.Cosmos.Queries;

/// <summary>What a document path is to the policy's selectors (<see cref="QueryPolicyPaths.Classify"/>).</summary>
internal enum PolicyPositionKind
{
    /// <summary>No selector ends at, inside or below it: plaintext, the query may use it freely.</summary>
    Plain,

    /// <summary>Exactly where a selector ends: one cell (one ciphertext string on the service).</summary>
    Cell,

    /// <summary>Below where a selector ends: inside a ciphertext string, nothing there on the service.</summary>
    Inside,

    /// <summary>Above where selectors end (<c>/address</c> of <c>/address/city</c>): a value that holds cells.</summary>
    Holds,

    /// <summary>A step computed at run time (<c>c[@p]</c>) where a selector could continue: the guard cannot tell.</summary>
    Computed,
}

/// <summary>A classified document path.</summary>
/// <param name="Kind">What the path is.</param>
/// <param name="RuleIndex">The selector it ends at, is inside of, or a selector it holds (for messages); -1 for <see cref="PolicyPositionKind.Plain"/>.</param>
internal readonly record struct PolicyPosition(PolicyPositionKind Kind, int RuleIndex)
{
    /// <summary>A plaintext position.</summary>
    public static PolicyPosition Plain => new(PolicyPositionKind.Plain, -1);
}
