using System.Text.Json;
using Encryption.Custom.Crypto;
using Encryption.Custom.Keys;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Crypto.Binding;

/// <summary>Bound cells through the library's data encryption key (protected memory), and refused by keys that cannot bind.</summary>
public sealed class BoundCellKeyTests
{
    [Fact]
    public void ProtectedKey_VectorCells_VerifyAndItsOwnCellsVerifyUnderTheTestKeySource()
    {
        using DataEncryptionKey key = DataEncryptionKey.Create(BoundCellVectors.RootKey, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        using DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(key);
        using AeadAes256CbcHmacSha256 reference = new(TestKeySource.FromRootKey(BoundCellVectors.RootKey), AeadBackends.Get(AeadBackendKind.Managed));

        foreach (JsonElement vector in BoundCellVectors.All)
        {
            byte[] associatedData = BoundCellVectors.AssociatedData(vector, BoundCellVectors.Digest(vector));
            byte[] cell = BoundCellVectors.Hex(vector.GetProperty("cellHex"));
            byte[] plainText = BoundCellVectors.Hex(vector.GetProperty("plainTextHex"));
            byte[] output = new byte[cell.Length];

            Assert.Equal(AeadCellCheck.Valid, key.TryDecryptBoundLeased(associatedData, cell, output, out int written));
            Assert.Equal(plainText, output[..written]);

            byte[] own = new byte[key.GetEncryptByteCount(plainText.Length)];
            key.EncryptBoundLeased(associatedData, plainText, own);
            Assert.Equal(AeadCellCheck.Valid, reference.TryDecryptBound(associatedData, own, output, out written));
            Assert.Equal(plainText, output[..written]);
        }
    }

    [Fact]
    public void ForeignKey_Bound_IsRefusedAsInvalidOptions()
    {
        using ReferenceDataEncryptionKey key = ReferenceDataEncryptionKey.ForVectors();
        byte[] associatedData = [0x02, .. new byte[40]];

        var encrypt = Assert.Throws<EncryptionException>(() => key.EncryptBoundLeased(associatedData, [1], new byte[100]));
        var decrypt = Assert.Throws<EncryptionException>(() => key.TryDecryptBoundLeased(associatedData, new byte[65], new byte[100], out _));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, encrypt.Kind);
        Assert.Equal(EncryptionErrorKind.InvalidOptions, decrypt.Kind);
    }
}
