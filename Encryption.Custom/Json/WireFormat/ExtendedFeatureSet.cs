namespace Encryption.Custom.Json.WireFormat;

/// <summary>The critical features (<c>_ev.crit</c>) a format 101 document requires, as far as this reader knows them.</summary>
[Flags]
internal enum ExtendedFeatureSet
{
    /// <summary>None.</summary>
    None = 0,

    /// <summary><c>sel</c>: nested selectors in <c>_ep</c>.</summary>
    Selectors = 1,

    /// <summary><c>bind</c>: randomized values are bound cells (wire-format.md "Bound cells").</summary>
    Bind = 2,

    /// <summary><c>commit</c>: the anchor holds the document commitment (wire-format.md "Document commitment"); needs <see cref="Bind"/>.</summary>
    Commit = 4,

    /// <summary><c>qt</c>: the document carries query tokens in <c>_q</c> (docs/wire-format.md "Query tokens").</summary>
    QueryTokens = 8,

    /// <summary><c>id</c>: the top-level id is encrypted and stored in the URL-safe alphabet (docs/wire-format.md "Encrypted ids and partition keys").</summary>
    Id = 16,
}
