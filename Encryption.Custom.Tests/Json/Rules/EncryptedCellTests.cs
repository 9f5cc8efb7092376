using System.Text;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;
using FsCheck;
using FsCheck.Fluent;

namespace Encryption.Custom.Tests.Json.Rules;

/// <summary>A format 3 value is recognised by its shape, and by which of the policy's keys authenticates it.</summary>
public sealed class EncryptedCellTests : IDisposable
{
    private readonly DataEncryptionKey _key = TestKeys.Create(TestKeyKind.Protected);
    private readonly DataEncryptionKey _other = TestKeys.Create(TestKeyKind.Protected);

    public void Dispose()
    {
        _key.Dispose();
        _other.Dispose();
    }

    private byte[] Cell(string json, DataEncryptionKey key)
    {
        byte[] encrypted = new StreamProcessor().Encrypt($$"""{"id":"x","v":{{json}}}""", key, new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/v"] });
        return Encoding.UTF8.GetBytes(TopLevelJson.Get(encrypted, "v").RawValue.Trim('"'));
    }

    [Theory]
    [InlineData("\"\"")]
    [InlineData("\"078-05-1120\"")]
    [InlineData("\"a string longer than one block of sixteen bytes\"")]
    [InlineData("42")]
    [InlineData("4.5")]
    [InlineData("true")]
    [InlineData("[1,2]")]
    [InlineData("{\"a\":1}")]
    public void EveryMarker_IsCellShaped_AndAuthenticatedOnlyByItsKey(string json)
    {
        byte[] cell = Cell(json, _key);

        Assert.True(EncryptedCell.IsCellShaped(cell));
        Assert.True(EncryptedCell.IsAuthenticatedBy(_key, cell));
        Assert.False(EncryptedCell.IsAuthenticatedBy(_other, cell));
        var encryptor = new TestEncryptor().Add("old", _other).Add("new", _key);
        Assert.Equal("new", EncryptedCell.FindAuthenticatingKey(encryptor, ["old", "new", "missing"], CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, cell, out string? unavailable));
        Assert.Null(unavailable);
        Assert.Null(EncryptedCell.FindAuthenticatingKey(encryptor, ["old", "missing"], CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, cell, out unavailable));
        Assert.Equal("missing", unavailable);
    }

    [Theory]
    [InlineData("078-05-1120")]
    [InlineData("")]
    [InlineData("AAAA")]
    [InlineData("not base64 at all, and long enough to pass the length check of a cell......................................")]
    public void OrdinaryText_IsNotCellShaped(string text) =>
        Assert.False(EncryptedCell.IsCellShaped(Encoding.UTF8.GetBytes(text)));

    [Fact]
    public void CellShape_GeneratedBlobs_MatchTheLayout()
    {
        // Shaped exactly when marker 2..7, version 1 (or 2, bound), length 66 + 16k, and scalars exactly 66.
        Gen<byte[]> blobs =
            from marker in Gen.Choose(0, 9)
            from version in Gen.Elements(0, 1, 2, 3)
            from length in Gen.Choose(2, 140)
            from body in Gen.ArrayOf(Gen.Choose(0, 255).Select(b => (byte)b), length - 2)
            select (byte[])[(byte)marker, (byte)version, .. body];

        Prop.ForAll(blobs.ToArbitrary(), blob =>
        {
            bool scalar = blob[0] is 3 or 4 or 5;
            bool expected = blob[0] is >= 2 and <= 7 && blob[1] is 1 or 2 && blob.Length >= 66 && (blob.Length - 66) % 16 == 0 && (!scalar || blob.Length == 66);
            return EncryptedCell.IsCellShaped(Encoding.ASCII.GetBytes(Convert.ToBase64String(blob))) == expected;
        }).QuickCheckThrowOnFailure();
    }
}
