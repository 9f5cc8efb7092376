using System.Text.Json.Nodes;
using Encryption.Custom.Tool.Tests.TestSupport;

namespace Encryption.Custom.Tool.Tests.Commands;

public sealed class InspectCommandTests : IDisposable
{
    private readonly TempFolder _folder = new();
    private readonly TestKey _key = TestKey.Random();

    public void Dispose() => _folder.Dispose();

    [Theory]
    [InlineData("stream")]
    [InlineData("newtonsoft")]
    public async Task Inspect_EncryptedDocument_PrintsTheMetadataAsOneJsonLine(string processor)
    {
        ToolRun encrypted = (await InProcessTool.RunWithInputAsync(TestDocuments.Plain, TestDocuments.EncryptArguments(_key.WriteKeyFile(_folder), processor))).AssertSuccess();

        ToolRun run = (await InProcessTool.RunWithInputAsync(encrypted.Output, "inspect")).AssertSuccess();

        Assert.Equal(
            """{"format":3,"algorithm":"MdeAeadAes256CbcHmac256Randomized","dekId":"dek-1","paths":["/ssn","/salary","/ratio","/active","/address","/tags"]}""" + "\n",
            run.OutputText);
    }

    [Fact]
    public async Task Inspect_InputFile_ReadsIt()
    {
        string input = _folder.Write("doc.json", """{"id":"1","a":"x","_ei":{"_ef":3,"_en":"k","_ea":"MdeAeadAes256CbcHmac256Randomized","_ed":null,"_ep":[]}}""");

        ToolRun run = (await InProcessTool.RunAsync("inspect", "--in", input)).AssertSuccess();

        Assert.Equal("""{"format":3,"algorithm":"MdeAeadAes256CbcHmac256Randomized","dekId":"k","paths":[]}""" + "\n", run.OutputText);
    }

    [Theory]
    [InlineData("""{"id":"1","ssn":"123-45-6789"}""")]
    [InlineData("""{"id":"1","ssn":"123-45-6789","_ei":null}""")]
    [InlineData("{}")]
    public async Task Inspect_UnencryptedDocument_PrintsEncryptedFalse(string document)
    {
        ToolRun run = (await InProcessTool.RunWithInputAsync(document, "inspect")).AssertSuccess();

        Assert.Equal("{\"encrypted\":false}\n", run.OutputText);
    }

    [Fact]
    public async Task Inspect_UnusualDekIdAndPaths_PrintsThemAsValidJson()
    {
        const string KeyId = "clé \"quoted\" \\ tab\t😀";
        ToolRun encrypted = (await InProcessTool.RunWithInputAsync("""{"id":"1","naïve":"x","a\"b":1}""",
            "encrypt", "--key-file", _key.WriteKeyFile(_folder), "--dek-id", KeyId, "--path", "/naïve", "--path", "/a\"b")).AssertSuccess();

        ToolRun run = (await InProcessTool.RunWithInputAsync(encrypted.Output, "inspect")).AssertSuccess();

        JsonObject metadata = JsonNode.Parse(run.OutputText)!.AsObject();
        Assert.Equal(KeyId, (string?)metadata["dekId"]);
        Assert.Equal(["/naïve", "/a\"b"], metadata["paths"]!.AsArray().Select(p => (string)p!));
        Assert.Single(run.OutputText.TrimEnd('\n').Split('\n'));
    }

    [Fact]
    public async Task Inspect_NeedsNoKey_KeyFileOptionIsAUsageError()
    {
        ToolRun run = await InProcessTool.RunWithInputAsync("{}", "inspect", "--key-file", "k.hex");

        run.AssertFailure(ExitCodes.UsageError, "UsageError");
    }

    public static TheoryData<string, string> BadDocuments => new()
    {
        { """{"id":"1","ssn":"123-45-6789",""", "MalformedDocument" },
        { """["not","an","object"]""", "MalformedDocument" },
        { """{"id":"1","_ei":{"_ef":3,"_ea":"MdeAeadAes256CbcHmac256Randomized","_ep":[]}}""", "MalformedDocument" },
        { """{"id":"1","_ei":"x"}""", "MalformedDocument" },
        { """{"id":"1","_ei":{"_ef":4,"_en":"k","_ea":"MdeAeadAes256CbcHmac256Randomized","_ep":[]}}""", "UnsupportedFormat" },
        { """{"id":"1","_ei":{"_ef":3,"_en":"k","_ea":"Rot13","_ep":[]}}""", "UnsupportedFormat" },
        { """{"id":"1","a":5,"_ei":{"_ef":3,"_en":"k","_ea":"MdeAeadAes256CbcHmac256Randomized","_ep":["/a"]}}""", "InvalidEncryptedValue" },
    };

    [Theory]
    [MemberData(nameof(BadDocuments))]
    public async Task Inspect_BadDocument_FailsWithExitCodeThreeAndOneLine(string document, string kind)
    {
        ToolRun run = await InProcessTool.RunWithInputAsync(document, "inspect");

        string line = run.AssertFailure(ExitCodes.BadInput, kind);
        Assert.DoesNotContain("123-45-6789", line, StringComparison.Ordinal);
    }
}
