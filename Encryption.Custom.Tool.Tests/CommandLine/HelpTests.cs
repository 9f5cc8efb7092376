using System.CommandLine;
using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.Tests.TestSupport;

namespace Encryption.Custom.Tool.Tests.CommandLine;

public sealed class HelpTests
{
    public static TheoryData<string> CommandNames => new(ToolCommandLine.All.Select(c => c.Name));

    [Theory]
    [InlineData("--help")]
    [InlineData("-h")]
    public async Task Help_Tool_ListsCommandsKeyFileWarningAndExitCodes(string flag)
    {
        ToolRun run = (await InProcessTool.RunAsync(flag)).AssertSuccess();

        string text = run.OutputText;
        foreach (ToolCommand command in ToolCommandLine.All)
        {
            Assert.Contains($"  {command.Name}", text, StringComparison.Ordinal);
            Assert.Contains(command.Summary, text, StringComparison.Ordinal);
        }

        Assert.Contains("development and support only", text, StringComparison.Ordinal);
        Assert.Contains("64 hexadecimal characters", text, StringComparison.Ordinal);
        Assert.Contains("Exit codes:", text, StringComparison.Ordinal);
        Assert.Contains("3  bad input", text, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(CommandNames))]
    public async Task Help_Command_ShowsUsageAndEveryOption(string name)
    {
        ToolCommand command = ToolCommandLine.Find(name)!;

        ToolRun run = (await InProcessTool.RunAsync(name, "--help")).AssertSuccess();
        ToolRun shortFlag = (await InProcessTool.RunAsync(name, "-h")).AssertSuccess();

        string text = run.OutputText;
        Assert.StartsWith($"Usage: cosmos-encryption {name} ", text, StringComparison.Ordinal);
        foreach (Option option in command.Options)
        {
            Assert.Contains($"  {option.Name} {option.HelpName}", text, StringComparison.Ordinal);
        }

        Assert.Equal(command.Options.Any(o => o.Name == "--key-file"), text.Contains("development and support only", StringComparison.Ordinal));
        Assert.Equal(text, shortFlag.OutputText);
    }

    [Fact]
    public async Task Help_Status_ListsOnlyTheExitCodesAndOptionsStatusHas()
    {
        string text = (await InProcessTool.RunAsync("status", "--help")).AssertSuccess().OutputText;

        Assert.Contains("  0  success", text, StringComparison.Ordinal);
        Assert.Contains("  1  the service refused the query", text, StringComparison.Ordinal);
        Assert.Contains("  3  with --target-container: a DEK", text, StringComparison.Ordinal);
        Assert.Contains("  5  with --target-container: the copy is not complete", text, StringComparison.Ordinal);
        Assert.DoesNotContain("  4  ", text, StringComparison.Ordinal);
        Assert.DoesNotContain("--out", text, StringComparison.Ordinal);
        Assert.DoesNotContain("to resume", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Help_Migrate_ListsTheRefusalAndTheKeyProofExitCodes()
    {
        string text = (await InProcessTool.RunAsync("migrate", "--help")).AssertSuccess().OutputText;

        Assert.Contains("--decrypt-path or --change-type-path", text, StringComparison.Ordinal);
        Assert.Contains("  3  a DEK or the key-encryption key file cannot be read, or a DEK cannot be unwrapped", text, StringComparison.Ordinal);
        Assert.Contains("  4  finished, but some documents", text, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("create-dek", "AlreadyExists: create-dek found a DEK with that id")]
    [InlineData("rewrap-dek", "  3  the key-encryption key file cannot be read, the DEK cannot be read or unwrapped")]
    [InlineData("list-deks", "  3  a document of the DEK container is not a DEK document")]
    public async Task Help_DekCommands_ListTheirOwnExitCodesAndNoDocumentOptions(string name, string exitCodeLine)
    {
        string text = (await InProcessTool.RunAsync(name, "--help")).AssertSuccess().OutputText;

        Assert.Contains(exitCodeLine, text, StringComparison.Ordinal);
        Assert.DoesNotContain("  4  ", text, StringComparison.Ordinal);
        Assert.DoesNotContain("--out", text, StringComparison.Ordinal);
        Assert.DoesNotContain("to resume", text, StringComparison.Ordinal);
        Assert.Contains("--endpoint URI --database NAME --dek-container NAME", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Help_RequiredOptions_AreMarkedRequired()
    {
        ToolRun run = (await InProcessTool.RunAsync("encrypt", "--help")).AssertSuccess();

        Assert.Contains("--key-file PATH --dek-id ID --path /NAME [--path /NAME ...] [--processor", run.OutputText, StringComparison.Ordinal);
        Assert.Equal(3, run.OutputText.Split("Required.").Length - 1);
    }

    [Fact]
    public async Task Version_PrintsTheInformationalVersion()
    {
        ToolRun run = (await InProcessTool.RunAsync("--version")).AssertSuccess();

        Assert.Equal(ToolApplication.Version + "\n", run.OutputText);
        Assert.Matches("^[0-9]+\\.[0-9]+\\.[0-9]+", run.OutputText);
    }
}
