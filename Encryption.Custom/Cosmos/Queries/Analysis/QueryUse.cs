namespace Encryption.Custom.Cosmos.Queries.Analysis;

/// <summary>How the surrounding query uses a value (what a reference to a policy path may be allowed for).</summary>
internal enum QueryUse
{
    /// <summary>Computed with (an operator, a function, a condition): never allowed on a policy path.</summary>
    Other,

    /// <summary>
    /// Returned by the outermost SELECT under its own name beside the document's <c>_ei</c>: allowed (the container
    /// decrypts it, or refuses plaintext there, as for any read).
    /// </summary>
    Projection,

    /// <summary>As <see cref="Projection"/>, in a SELECT DISTINCT: refused (the envelope the row needs takes part in DISTINCT and differs between documents).</summary>
    DistinctProjection,

    /// <summary>
    /// Returned as a bare value, under another name or without <c>_ei</c>: nothing would decrypt it, so a policy path
    /// is refused (the application would receive ciphertext); the whole document is fine (its <c>_ei</c> comes along).
    /// </summary>
    BareProjection,

    /// <summary>Only whether it is there: <c>IS_DEFINED</c>, <c>IS_NULL</c>, <c>COUNT</c> (null values are not encrypted).</summary>
    Existence,

    /// <summary>ORDER BY.</summary>
    Ordering,

    /// <summary>GROUP BY.</summary>
    Grouping,

    /// <summary>Returned by a subquery into the rest of the query, where it is computed with.</summary>
    SubqueryProjection,
}
