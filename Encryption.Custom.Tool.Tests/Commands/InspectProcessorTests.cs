using Encryption.Custom.Tool.Tests.TestSupport;

namespace Encryption.Custom.Tool.Tests.Commands;

/// <summary><c>inspect --processor</c>: either processor's reader judges the document, with the same answer.</summary>
public sealed class InspectProcessorTests : IDisposable
{
    private readonly TempFolder _folder = new();
    private readonly TestKey _key = TestKey.Random();

    public void Dispose() => _folder.Dispose();

    [Theory]
    [InlineData("stream")]
    [InlineData("newtonsoft")]
    public async Task Inspect_ExtendedFormat_PrintsBoundAndTheNestedSelectors(string processor)
    {
        ToolRun encrypted = (await InProcessTool.RunWithInputAsync("""{"id":"1","ssn":"1","address":{"city":"Oslo","zip":"0150"}}""",
            "encrypt", "--key-file", _key.WriteKeyFile(_folder), "--dek-id", "dek-1", "--path", "/ssn", "--path", "/address/city")).AssertSuccess();

        ToolRun run = (await InProcessTool.RunWithInputAsync(encrypted.Output, "inspect", "--processor", processor)).AssertSuccess();

        Assert.Equal(
            """{"format":101,"algorithm":"MdeAeadAes256CbcHmac256Randomized","dekId":"dek-1","bound":false,"paths":["/ssn","/address/city"]}""" + "\n",
            run.OutputText);
    }

    [Theory]
    [InlineData("stream")]
    [InlineData("newtonsoft")]
    public async Task Inspect_UnknownCriticalFeature_IsRefusedByEitherProcessor(string processor)
    {
        const string Document = """{"id":"1","_ex":"x","_ei":{"_ef":101,"_en":"k","_ea":"MdeAeadAes256CbcHmac256Randomized","_ev":{"v":1,"crit":["zz"]},"_ed":null,"_ep":["/_ex"]}}""";

        ToolRun run = await InProcessTool.RunWithInputAsync(Document, "inspect", "--processor", processor);

        string line = run.AssertFailure(ExitCodes.BadInput, "UnsupportedFormat");
        Assert.Contains("'zz'", line, StringComparison.Ordinal);
    }
}
