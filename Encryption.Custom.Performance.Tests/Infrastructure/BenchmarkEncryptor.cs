using Encryption.Custom.Keys;

namespace Encryption.Custom.Performance.Tests.Infrastructure;

/// <summary>
/// An in-memory <see cref="Encryptor"/> over one key: answers every lookup of its id with a completed
/// <see cref="ValueTask{TResult}"/> (no allocation), the way a warm DEK cache does.
/// </summary>
public sealed class BenchmarkEncryptor(string keyId, DataEncryptionKey key) : Encryptor
{
    public DataEncryptionKey Key { get; } = key;

    /// <exception cref="EncryptionException">The id or algorithm is not this encryptor's key.</exception>
    public override ValueTask<DataEncryptionKey> GetEncryptionKeyAsync(string dataEncryptionKeyId, string encryptionAlgorithm, CancellationToken cancellationToken = default)
    {
        if (!string.Equals(dataEncryptionKeyId, keyId, StringComparison.Ordinal)
            || !string.Equals(encryptionAlgorithm, Key.EncryptionAlgorithm, StringComparison.Ordinal))
        {
            throw new EncryptionException(EncryptionErrorKind.KeyUnavailable, "The benchmark encryptor holds one key only.", dataEncryptionKeyId);
        }

        return new ValueTask<DataEncryptionKey>(Key);
    }
}
