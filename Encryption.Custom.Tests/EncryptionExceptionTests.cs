namespace Encryption.Custom.Tests;

public class EncryptionExceptionTests
{
    [Fact]
    public void Constructor_WithKeyIdAndPath_ExposesThem()
    {
        var exception = new EncryptionException(EncryptionErrorKind.InvalidCipherText, "bad value", "dek1", "/ssn");

        Assert.Equal(EncryptionErrorKind.InvalidCipherText, exception.Kind);
        Assert.Equal("dek1", exception.DataEncryptionKeyId);
        Assert.Equal("/ssn", exception.Path);
        Assert.Equal("bad value", exception.Message);
    }

    [Fact]
    public void Constructor_Default_IsUnspecified()
    {
        var exception = new EncryptionException();

        Assert.Equal(EncryptionErrorKind.Unspecified, exception.Kind);
        Assert.Null(exception.DataEncryptionKeyId);
        Assert.Null(exception.Path);
    }
}
