namespace Encryption.Custom;

/// <summary>The algorithm names written to and read from the <c>_ea</c> field and DEK documents.</summary>
public static class CosmosEncryptionAlgorithm
{
    /// <summary>
    /// AEAD_AES_256_CBC_HMAC_SHA256 with randomized IVs and the SQL Server key-derivation labels
    /// (format version 3). The algorithm for everything this library writes.
    /// </summary>
    public const string MdeAeadAes256CbcHmac256Randomized = "MdeAeadAes256CbcHmac256Randomized";

    /// <summary>
    /// The legacy algorithm of format version 2: the same cell layout with the Cosmos DB key-derivation labels.
    /// Read-only: documents in this format can be decrypted, never written.
    /// </summary>
    public const string AEAes256CbcHmacSha256Randomized = "AEAes256CbcHmacSha256Randomized";
}
