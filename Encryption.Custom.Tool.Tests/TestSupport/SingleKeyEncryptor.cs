using Encryption.Custom.Keys;

namespace Encryption.Custom.Tool.Tests.TestSupport;

/// <summary>The library side of interoperability tests: one key, under one id.</summary>
internal sealed class SingleKeyEncryptor(string keyId, DataEncryptionKey key) : Encryptor
{
    public override ValueTask<DataEncryptionKey> GetEncryptionKeyAsync(string dataEncryptionKeyId, string encryptionAlgorithm, CancellationToken cancellationToken = default) =>
        string.Equals(dataEncryptionKeyId, keyId, StringComparison.Ordinal)
            ? ValueTask.FromResult(key)
            : throw new EncryptionException(EncryptionErrorKind.KeyUnavailable, "Unknown key.", dataEncryptionKeyId);
}
