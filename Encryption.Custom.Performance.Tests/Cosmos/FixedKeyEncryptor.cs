using Encryption.Custom.Keys;

namespace Encryption.Custom.Performance.Tests.Cosmos;

/// <summary>An encryptor with one resolved key, answering synchronously (a warm DEK cache).</summary>
public sealed class FixedKeyEncryptor(DataEncryptionKey key) : Encryptor
{
    public override ValueTask<DataEncryptionKey> GetEncryptionKeyAsync(string dataEncryptionKeyId, string encryptionAlgorithm, CancellationToken cancellationToken = default) =>
        new(key);
}
