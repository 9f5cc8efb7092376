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
}
