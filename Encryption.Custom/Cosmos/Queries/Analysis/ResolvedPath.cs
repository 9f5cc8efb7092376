namespace Encryption.Custom.Cosmos.Queries.Analysis;

/// <summary>
/// Where a reference points: a path from the document root (<see cref="IsKnown"/>), or a value the analyzer cannot
/// attribute to the document (an unbound name, a subquery's computed rows), given with the names used to reach it.
/// </summary>
/// <param name="IsKnown">Whether <see cref="Segments"/> start at the document root.</param>
/// <param name="Segments">The steps: property names, array elements (<see cref="PathStep.Element"/>) or computed indexes.</param>
internal sealed record ResolvedPath(bool IsKnown, IReadOnlyList<PathStep> Segments)
{
    /// <summary>The document itself.</summary>
    public static ResolvedPath Document { get; } = new(true, []);

    /// <summary>A value of unknown origin.</summary>
    public static ResolvedPath Unknown { get; } = new(false, []);

    /// <summary>This path, one step further.</summary>
    public ResolvedPath Append(PathStep step) => this with { Segments = [.. Segments, step] };
}

/// <summary>One step of a <see cref="ResolvedPath"/>.</summary>
/// <param name="Name">The property name, or <see langword="null"/> for an array element or a computed index.</param>
/// <param name="IsComputed">An index the text does not fix (<c>c[@p]</c>, <c>c[f(x)]</c>): it may name any property.</param>
internal readonly record struct PathStep(string? Name, bool IsComputed)
{
    /// <summary>An array element (a numeric index or an iteration with IN).</summary>
    public static PathStep Element => new(null, false);

    /// <summary>An index computed at run time.</summary>
    public static PathStep Computed => new(null, true);

    /// <summary>A property name.</summary>
    public static PathStep Property(string name) => new(name, false);
}
