using System.Buffers.Binary;
using System.Security.Cryptography;
using System.Text.Json;
using Encryption.Custom.Crypto;

namespace Encryption.Custom.Tests.Crypto.Binding;

/// <summary>The library reproduces every bound-cell vector byte for byte: keys, D, A, cell (docs/wire-format.md "Bound cells").</summary>
public sealed class BoundCellKnownAnswerTests
{
    public static TheoryData<string> Names => BoundCellVectors.Names;

    public static TheoryData<AeadBackendKind, string> NamesWithBackends => BoundCellVectors.NamesWithBackends;

    [Theory]
    [InlineData((int)AeadSubKey.BoundMac, "boundMac")]
    [InlineData((int)AeadSubKey.Commitment, "commitment")]
    [InlineData((int)AeadSubKey.QueryToken, "queryToken")]
    public void DeriveExtendedSubKey_VectorRoot_MatchesVectorKey(int subKey, string name)
    {
        byte[] derived = new byte[32];

        AeadKeyDerivation.DeriveExtendedSubKey(BoundCellVectors.RootKey, (AeadSubKey)subKey, derived);

        Assert.Equal(Convert.ToHexStringLower(BoundCellVectors.Key(name)), Convert.ToHexStringLower(derived));
    }

    [Fact]
    public void DeriveSubKeys_VectorRoot_EncryptionKeyIsTheBoundCellsEncryptionKey()
    {
        byte[] derived = new byte[96];

        AeadKeyDerivation.DeriveSubKeys(BoundCellVectors.RootKey, AeadKeyLabels.Current, derived);

        Assert.Equal(BoundCellVectors.Key("encryption"), derived[..32]);
    }

    [Fact]
    public void Vectors_CoverEveryPartitionKeyKindAndAreAllDistinct()
    {
        string[] types = BoundCellVectors.All
            .SelectMany(v => v.GetProperty("partitionKey").EnumerateArray())
            .Select(c => c.GetProperty("type").GetString()!)
            .Distinct()
            .ToArray();

        Assert.Equal(["boolean", "null", "number", "string", "undefined"], types.Order());
        Assert.Contains(BoundCellVectors.All, v => v.GetProperty("partitionKey").GetArrayLength() == 3);
        Assert.Contains(BoundCellVectors.All, v => v.GetProperty("partitionKey").GetArrayLength() == 0);
        Assert.Equal(BoundCellVectors.All.Count(), BoundCellVectors.All.Select(v => v.GetProperty("cellHex").GetString()).Distinct().Count());
    }

    [Theory]
    [MemberData(nameof(Names))]
    public void DigestAndAssociatedData_Vector_MatchByteForByte(string name)
    {
        JsonElement vector = BoundCellVectors.Get(name);

        byte[] digest = BoundCellVectors.Digest(vector);
        byte[] associatedData = BoundCellVectors.AssociatedData(vector, digest);

        Assert.Equal(vector.GetProperty("digestHex").GetString(), Convert.ToHexStringLower(digest));
        Assert.Equal(Convert.ToHexStringLower(SHA256.HashData(BoundCellVectors.Hex(vector.GetProperty("digestInputHex")))), Convert.ToHexStringLower(digest));
        Assert.Equal(vector.GetProperty("associatedDataHex").GetString(), Convert.ToHexStringLower(associatedData));
    }

    [Theory]
    [MemberData(nameof(NamesWithBackends))]
    public void TryDecryptBound_VectorCell_VerifiesAndReturnsThePlaintext(AeadBackendKind backend, string name)
    {
        JsonElement vector = BoundCellVectors.Get(name);
        byte[] associatedData = BoundCellVectors.AssociatedData(vector, BoundCellVectors.Digest(vector));
        byte[] cell = BoundCellVectors.Hex(vector.GetProperty("cellHex"));
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.FromRootKey(BoundCellVectors.RootKey));
        byte[] plainText = new byte[AeadAes256CbcHmacSha256.GetMaxPlainTextLength(cell.Length)];

        AeadCellCheck check = aead.TryDecryptBound(associatedData, cell, plainText, out int written);

        Assert.Equal(AeadCellCheck.Valid, check);
        Assert.Equal(vector.GetProperty("plainTextHex").GetString(), Convert.ToHexStringLower(plainText.AsSpan(0, written)));
        Assert.Equal(vector.GetProperty("valueBase64").GetString(), Convert.ToBase64String([(byte)vector.GetProperty("marker").GetInt32(), .. cell]));
    }

    [Theory]
    [MemberData(nameof(NamesWithBackends))]
    public void EncryptBound_VectorInputs_IsTheSpecifiedCellForTheIvItChose(AeadBackendKind backend, string name)
    {
        // The library never takes an IV from its caller, so the cell it writes is checked against the vector's
        // keys with the IV it chose: same version, same C for that IV, same tag over the same A.
        JsonElement vector = BoundCellVectors.Get(name);
        byte[] associatedData = BoundCellVectors.AssociatedData(vector, BoundCellVectors.Digest(vector));
        byte[] plainText = BoundCellVectors.Hex(vector.GetProperty("plainTextHex"));
        using AeadAes256CbcHmacSha256 aead = AeadBackends.Create(backend, TestKeySource.FromRootKey(BoundCellVectors.RootKey));
        byte[] cell = new byte[AeadAes256CbcHmacSha256.GetCipherTextLength(plainText.Length)];

        int written = aead.EncryptBound(associatedData, plainText, cell);

        Assert.Equal(BoundCellVectors.Hex(vector.GetProperty("cellHex")).Length, written);
        byte[] iv = cell[33..49];
        using Aes aes = Aes.Create();
        aes.Key = BoundCellVectors.Key("encryption");
        byte[] cipherText = aes.EncryptCbc(plainText, iv, PaddingMode.PKCS7);
        byte[] bitLength = new byte[8];
        BinaryPrimitives.WriteUInt64BigEndian(bitLength, 8UL * (ulong)associatedData.Length);
        byte[] tagInput = [.. associatedData, .. iv, .. cipherText, .. bitLength];
        byte[] tag = HMACSHA256.HashData(BoundCellVectors.Key("boundMac"), tagInput);
        Assert.Equal(Convert.ToHexStringLower([0x02, .. tag, .. iv, .. cipherText]), Convert.ToHexStringLower(cell));
    }
}
