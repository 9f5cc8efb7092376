namespace Encryption.Custom.Performance.Tests.Documents;

/// <summary>The document shapes every benchmark and the allocation report run over (performance.md, "How we measure").</summary>
public enum DocumentShape
{
    /// <summary>
    /// The shape of the published package's benchmark: an id, a plain string, and three encrypted properties: one
    /// string, one number and one large object (a dictionary of strings) that carries almost all the bytes.
    /// </summary>
    Published = 0,

    /// <summary>
    /// Many small properties with about half the bytes in ~400-byte encrypted strings, plus numbers, booleans, nested
    /// objects and arrays (a few of them encrypted too).
    /// </summary>
    Mixed = 1,

    /// <summary>
    /// The mixed shape with lookup keys: in every block the SKU (a string), the SSN (an integer), the price (a double)
    /// and the verified flag (a boolean) are encrypted deterministically, as a container policy encrypts the paths
    /// that equality queries use (docs/queries.md), beside the randomized note and the occasional randomized object.
    /// Measured by the allocation report, which holds the deterministic encrypt path to the same targets.
    /// </summary>
    Lookup = 2,

    /// <summary>
    /// A customer with an address and an array of orders, encrypted by nested selectors only (format 101): the address
    /// city, each order's card number and each order line's ~300-byte note. Measured by the allocation report, which
    /// holds the nested walk to the same targets.
    /// </summary>
    Nested = 3,

    /// <summary>
    /// The mixed shape in a container whose policy binds documents (format 101, wire-format.md "Bound cells"): every
    /// value becomes a bound cell over the document digest (its id and partition key, here <c>/type</c>). Measured by
    /// the allocation report.
    /// </summary>
    Bound = 4,

    /// <summary>The bound shape with the document commitment as well (wire-format.md "Document commitment").</summary>
    Committed = 5,

    /// <summary>
    /// The lookup shape with query tokens (docs/queries.md, "Range and prefix queries"): in every block the SKU
    /// declares prefix queries, the SSN an integer range, the price a decimal range and the creation date a date-time
    /// range, so each block stores about 45 tokens beside its cells. Measured by the allocation report.
    /// </summary>
    Tokens = 6,
}
