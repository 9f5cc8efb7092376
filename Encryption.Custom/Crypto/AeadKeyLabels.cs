// Label sets of the sub-key derivation HMAC-SHA256(root, UTF-16LE(label)) (wire-format.md §1).
namespace Encryption.Custom.Crypto;

/// <summary>Which set of key-derivation labels derives the sub-keys (wire-format.md §1).</summary>
internal enum AeadKeyLabels
{
    /// <summary>"Microsoft SQL Server cell … key" labels: <see cref="CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized"/>.</summary>
    Current = 0,

    /// <summary>"Microsoft Azure Cosmos DB … key" labels: <see cref="CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized"/>.</summary>
    Legacy = 1,
}
