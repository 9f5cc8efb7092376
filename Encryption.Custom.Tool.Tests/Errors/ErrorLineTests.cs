using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.Tests.Errors;

public sealed class ErrorLineTests
{
    [Fact]
    public void For_EncryptionExceptionWithKeyAndPath_NamesKindKeyAndPath()
    {
        var exception = new EncryptionException(EncryptionErrorKind.InvalidCipherText, "The value could not be decrypted.", "dek-1", "/ssn");

        Assert.Equal(
            "cosmos-encryption: InvalidCipherText (dekId 'dek-1', path '/ssn'): The value could not be decrypted.",
            ErrorLine.For(exception));
    }

    [Fact]
    public void For_EncryptionExceptionWithPathOnly_NamesThePath()
    {
        var exception = new EncryptionException(EncryptionErrorKind.LimitExceeded, "Too big.", path: "/n");

        Assert.Equal("cosmos-encryption: LimitExceeded (path '/n'): Too big.", ErrorLine.For(exception));
    }

    [Fact]
    public void For_ControlCharactersFromTheDocument_StayOnOneLine()
    {
        var exception = new EncryptionException(EncryptionErrorKind.KeyUnavailable, "Line one\r\nline two\u2028.", "dek\nforged: line", "/a\tb");

        string line = ErrorLine.For(exception);

        Assert.DoesNotContain('\n', line);
        Assert.DoesNotContain('\r', line);
        Assert.DoesNotContain('\u2028', line);
        Assert.Contains("dekId 'dek\\u000aforged: line'", line, StringComparison.Ordinal);
        Assert.Contains("path '/a\\u0009b'", line, StringComparison.Ordinal);
        Assert.EndsWith("Line one\\u000d\\u000aline two\\u2028.", line, StringComparison.Ordinal);
    }

    [Fact]
    public void ForUnexpected_AnyException_NamesTheTypeButNotTheMessage()
    {
        string line = ErrorLine.ForUnexpected(new InvalidOperationException("plaintext 123-45-6789"));

        Assert.StartsWith("cosmos-encryption: Unexpected: ", line, StringComparison.Ordinal);
        Assert.Contains("System.InvalidOperationException", line, StringComparison.Ordinal);
        Assert.DoesNotContain("123-45-6789", line, StringComparison.Ordinal);
    }
}
