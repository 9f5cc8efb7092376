using System.Security.Cryptography;
using System.Text;
using Encryption.Custom.Crypto;

namespace Encryption.Custom.Tests.Crypto;

public class AeadKeyDerivationTests
{
    [Fact]
    public void DeriveSubKeys_RandomRoot_MatchesReferenceForBothLabelSets()
    {
        byte[] root = RandomNumberGenerator.GetBytes(32);
        byte[] current = new byte[96];
        byte[] legacy = new byte[96];

        AeadKeyDerivation.DeriveSubKeys(root, AeadKeyLabels.Current, current);
        AeadKeyDerivation.DeriveSubKeys(root, AeadKeyLabels.Legacy, legacy);

        Assert.Equal([.. ReferenceAead.DeriveKey(root, false, "encryption"), .. ReferenceAead.DeriveKey(root, false, "MAC"), .. ReferenceAead.DeriveKey(root, false, "IV")], current);
        Assert.Equal([.. ReferenceAead.DeriveKey(root, true, "encryption"), .. ReferenceAead.DeriveKey(root, true, "MAC"), .. ReferenceAead.DeriveKey(root, true, "IV")], legacy);
    }

    [Fact]
    public void DeriveSubKeys_LongerDestination_WritesOnlyNinetySixBytes()
    {
        byte[] destination = Enumerable.Repeat((byte)0xAA, 100).ToArray();

        AeadKeyDerivation.DeriveSubKeys(RandomNumberGenerator.GetBytes(32), AeadKeyLabels.Current, destination);

        Assert.All(destination[96..], b => Assert.Equal(0xAA, b));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(16)]
    [InlineData(31)]
    [InlineData(33)]
    [InlineData(64)]
    public void DeriveSubKeys_RootKeyNot32Bytes_ThrowsArgumentException(int length)
    {
        var exception = Assert.Throws<ArgumentException>(() => AeadKeyDerivation.DeriveSubKeys(new byte[length], AeadKeyLabels.Current, new byte[96]));

        Assert.Equal("rootKey", exception.ParamName);
    }

    [Fact]
    public void DeriveSubKeys_DestinationShorterThan96_ThrowsArgumentException()
    {
        var exception = Assert.Throws<ArgumentException>(() => AeadKeyDerivation.DeriveSubKeys(new byte[32], AeadKeyLabels.Current, new byte[95]));

        Assert.Equal("destination", exception.ParamName);
    }

    [Fact]
    public void DeriveSubKeys_DestinationOverlapsRoot_ThrowsArgumentException()
    {
        byte[] buffer = new byte[128];

        var exception = Assert.Throws<ArgumentException>(() => AeadKeyDerivation.DeriveSubKeys(buffer.AsSpan(0, 32), AeadKeyLabels.Current, buffer.AsSpan(16, 96)));

        Assert.Equal("destination", exception.ParamName);
    }

    [Fact]
    public void DeriveSubKeys_UndefinedLabels_ThrowsArgumentOutOfRange()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => AeadKeyDerivation.DeriveSubKeys(new byte[32], (AeadKeyLabels)2, new byte[96]));
    }

    [Fact]
    public void GetLabel_EachSubKey_IsUtf16LittleEndianOfItsLabel()
    {
        var expected = new (AeadKeyLabels Labels, AeadSubKey SubKey, string Start)[]
        {
            (AeadKeyLabels.Current, AeadSubKey.Encryption, "Microsoft SQL Server cell encryption key"),
            (AeadKeyLabels.Current, AeadSubKey.Mac, "Microsoft SQL Server cell MAC key"),
            (AeadKeyLabels.Current, AeadSubKey.Iv, "Encryption.Custom deterministic IV key"),
            (AeadKeyLabels.Legacy, AeadSubKey.Encryption, "Microsoft Azure Cosmos DB encryption key"),
            (AeadKeyLabels.Legacy, AeadSubKey.Mac, "Microsoft Azure Cosmos DB MAC key"),
            (AeadKeyLabels.Legacy, AeadSubKey.Iv, "Encryption.Custom deterministic IV key"),
        };

        foreach ((AeadKeyLabels labels, AeadSubKey subKey, string start) in expected)
        {
            byte[] label = AeadKeyDerivation.GetLabel(labels, subKey).ToArray();

            Assert.Equal(start + " with encryption algorithm:AEAD_AES_256_CBC_HMAC_SHA256 and key length:256", Encoding.Unicode.GetString(label));
            Assert.Equal((byte)start[0], label[0]);
            Assert.Equal(0, label[1]);
        }
    }
}
