using System.Security.Cryptography;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Tests.TestSupport;

/// <summary>Creates keys of either implementation from the same root bytes.</summary>
public static class TestKeys
{
    public static DataEncryptionKey Create(TestKeyKind kind, string algorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized) =>
        Create(kind, RandomNumberGenerator.GetBytes(32), algorithm);

    public static DataEncryptionKey Create(TestKeyKind kind, byte[] rootKey, string algorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized) => kind switch
    {
        TestKeyKind.Reference => new ReferenceDataEncryptionKey(rootKey, algorithm),

        // Create wipes what it is given: hand it a copy.
        _ => DataEncryptionKey.Create((byte[])rootKey.Clone(), algorithm),
    };
}
