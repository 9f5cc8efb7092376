using System.CommandLine;
using Encryption.Custom.Tool.CommandLine;

namespace Encryption.Custom.Tool.Tests.CommandLine;

/// <summary>Only a message the tool wrote reaches the error line; System.CommandLine's own quote the command line.</summary>
public sealed class UsageErrorsTests
{
    [Theory]
    [InlineData("0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20")]
    [InlineData("s3cr3t")]
    public void FirstOf_AnErrorTheToolDidNotWrite_IsReportedWithoutItsText(string stray)
    {
        var command = new RootCommand { new Option<string>("--in") };

        ParseResult result = command.Parse(["--in", "x", stray]);

        Assert.NotEmpty(result.Errors);
        Assert.Contains(stray, result.Errors[0].Message, StringComparison.Ordinal);
        Assert.Equal("the command line cannot be parsed (see 'cosmos-encryption decrypt --help').", UsageErrors.FirstOf(result, "decrypt"));
    }

    [Fact]
    public void FirstOf_AnOptionsOwnMessage_IsReportedAsWritten()
    {
        var command = new RootCommand { ToolOptions.Positive<int>("--parallelism", "N", "Documents rewritten at once.") };

        ParseResult result = command.Parse(["--parallelism", "0"]);

        Assert.Equal("option --parallelism needs a positive number (N).", UsageErrors.FirstOf(result, "migrate"));
    }

    [Fact]
    public void FirstOf_NoError_IsNull() =>
        Assert.Null(UsageErrors.FirstOf(new RootCommand { ToolOptions.Processor() }.Parse(["--processor", "newtonsoft"]), "decrypt"));
}
