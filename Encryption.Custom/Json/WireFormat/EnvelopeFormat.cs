namespace Encryption.Custom.Json.WireFormat;

/// <summary>The encryption format of a document, resolved from its <c>_ef</c> and <c>_ea</c> fields.</summary>
internal enum EnvelopeFormat
{
    /// <summary>Format 3: each listed property is encrypted on its own with <see cref="CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized"/>.</summary>
    PerProperty = 3,

    /// <summary>Format 2 (read-only): the listed properties were removed and encrypted together into <c>_ed</c> with <see cref="CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized"/>.</summary>
    LegacyBlob = 2,

    /// <summary>
    /// Format 101: as format 3 (same cells, same algorithm), plus nested selectors in <c>_ep</c>, the feature list
    /// <c>_ev</c> and the top-level anchor <c>_ex</c> listed first (wire-format.md, "Format 101").
    /// </summary>
    Extended = 101,
}
