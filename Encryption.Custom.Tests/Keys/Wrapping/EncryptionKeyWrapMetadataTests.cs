
namespace Encryption.Custom.Tests.Keys.Wrapping;

public class EncryptionKeyWrapMetadataTests
{
    [Fact]
    public void Equals_SameFields_AreEqualWithSameHash()
    {
        var first = new EncryptionKeyWrapMetadata("akv", "kek", "https://v/keys/kek/1", "RSA-OAEP");
        var second = new EncryptionKeyWrapMetadata("akv", "kek", "https://v/keys/kek/1", "RSA-OAEP");

        Assert.Equal(first, second);
        Assert.Equal(first.GetHashCode(), second.GetHashCode());
    }

    [Theory]
    [InlineData("local", "kek", "https://v/keys/kek/1", "RSA-OAEP")]
    [InlineData("akv", "other", "https://v/keys/kek/1", "RSA-OAEP")]
    [InlineData("akv", "kek", "https://v/keys/kek/2", "RSA-OAEP")]
    [InlineData("akv", "kek", "https://v/keys/kek/1", "RSA-OAEP-256")]
    [InlineData("akv", null, "https://v/keys/kek/1", "RSA-OAEP")]
    public void Equals_AnyFieldDiffers_AreNotEqual(string type, string? name, string value, string algorithm)
    {
        var reference = new EncryptionKeyWrapMetadata("akv", "kek", "https://v/keys/kek/1", "RSA-OAEP");

        Assert.NotEqual(reference, new EncryptionKeyWrapMetadata(type, name, value, algorithm));
    }

    [Fact]
    public void Constructor_ValueOnly_IsCustomType()
    {
        var metadata = new EncryptionKeyWrapMetadata("my-key");

        Assert.Equal(EncryptionKeyWrapMetadata.CustomType, metadata.Type);
        Assert.Equal("my-key", metadata.Value);
        Assert.Null(metadata.Name);
        Assert.Null(metadata.Algorithm);
    }
}
