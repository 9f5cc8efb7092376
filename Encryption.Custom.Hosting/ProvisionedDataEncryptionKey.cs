namespace Encryption.Custom.Hosting;

/// <summary>
/// A DEK <see cref="CosmosEncryptionBuilder.CreateDataEncryptionKeyIfNotExists"/> asked for: its id, the key-encryption
/// key that wraps it, and its algorithm. Registered as a singleton instance per DEK; <see cref="CosmosEncryptionInitializer"/>
/// creates each one the DEK container does not hold when the host starts.
/// </summary>
internal sealed record ProvisionedDataEncryptionKey(string Id, EncryptionKeyWrapMetadata KeyWrapMetadata, string EncryptionAlgorithm);
