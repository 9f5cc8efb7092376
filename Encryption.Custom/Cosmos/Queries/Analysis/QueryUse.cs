namespace Encryption.Custom.Cosmos.Queries.Analysis;

/// <summary>How the surrounding query uses a value (what a reference to a policy path may be allowed for).</summary>
internal enum QueryUse
{
    /// <summary>Computed with (an operator, a function, a condition): never allowed on a policy path.</summary>
    Other,

    /// <summary>Returned by the outermost SELECT: allowed (the container decrypts or refuses it).</summary>
    Projection,

    /// <summary>Returned by a SELECT DISTINCT: allowed on a deterministic path only (equal values, equal ciphertexts).</summary>
    DistinctProjection,

    /// <summary>Only whether it is there: <c>IS_DEFINED</c>, <c>IS_NULL</c>, <c>COUNT</c> (null values are not encrypted).</summary>
    Existence,

    /// <summary>ORDER BY.</summary>
    Ordering,

    /// <summary>GROUP BY.</summary>
    Grouping,

    /// <summary>Returned by a subquery into the rest of the query, where it is computed with.</summary>
    SubqueryProjection,
}
