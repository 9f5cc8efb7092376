using System.Collections.Concurrent;
using System.Security.Cryptography;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Tests.Keys.TestSupport;

/// <summary>Makes <see cref="TestDataEncryptionKey"/>s and keeps them, honouring the factory contract (zero the input).</summary>
internal sealed class TestKeyFactory : DataEncryptionKeyFactory
{
    public ConcurrentQueue<TestDataEncryptionKey> Created { get; } = new();

    public override DataEncryptionKey Create(Span<byte> rawKey, string encryptionAlgorithm)
    {
        var key = new TestDataEncryptionKey(rawKey, encryptionAlgorithm);
        CryptographicOperations.ZeroMemory(rawKey);
        Created.Enqueue(key);
        return key;
    }
}
