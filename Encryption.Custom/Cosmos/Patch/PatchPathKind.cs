namespace Encryption.Custom.Cosmos.Patch;

/// <summary>Where a patch path stands against the selectors of an encryption plan (<see cref="PatchSelectors.Classify"/>).</summary>
internal enum PatchPathKind
{
    /// <summary>No selector is at, above or below the path: the operation passes unchanged.</summary>
    Unrelated = 0,

    /// <summary>The path is exactly a selected value (<c>/cards/0/number</c> for <c>/cards/[]/number</c>): its value is one cell.</summary>
    Selected,

    /// <summary>The path holds one or more selected values (<c>/address</c>, <c>/cards/-</c>): they are encrypted inside the operation's value.</summary>
    Ancestor,

    /// <summary>The path lies below a selected value, inside a cell: refused (a cell is one opaque value).</summary>
    InsideCell,

    /// <summary>A segment equals a selector's name only when case is ignored: refused (serializers bind both to one member).</summary>
    CaseVariant,
}
