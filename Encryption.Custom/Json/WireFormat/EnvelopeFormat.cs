namespace Encryption.Custom.Json.WireFormat;

/// <summary>The encryption format of a document, resolved from its <c>_ef</c> and <c>_ea</c> fields.</summary>
internal enum EnvelopeFormat
{
    /// <summary>Format 3: each listed property is encrypted on its own with <see cref="CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized"/>.</summary>
    PerProperty = 3,

    /// <summary>Format 2 (read-only): the listed properties were removed and encrypted together into <c>_ed</c> with <see cref="CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized"/>.</summary>
    LegacyBlob = 2,
}
