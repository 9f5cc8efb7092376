using System.Text;
using Encryption.Custom.Tool.Tests.TestSupport;

namespace Encryption.Custom.Tool.Tests.Commands;

/// <summary>The built tool as a real process: real standard streams, real exit codes.</summary>
public sealed class ProcessTests : IDisposable
{
    private readonly TempFolder _folder = new();
    private readonly TestKey _key = TestKey.Random();

    public void Dispose() => _folder.Dispose();

    [Fact]
    public async Task Process_EncryptThenDecryptThroughPipes_RestoresTheDocument()
    {
        string keyFile = _key.WriteKeyFile(_folder);

        ToolRun encrypted = (await BuiltTool.RunAsync(Encoding.UTF8.GetBytes(TestDocuments.Plain), TestDocuments.EncryptArguments(keyFile))).AssertSuccess();
        ToolRun inspected = (await BuiltTool.RunAsync(encrypted.Output, "inspect")).AssertSuccess();
        ToolRun decrypted = (await BuiltTool.RunAsync(encrypted.Output, "decrypt", "--key-file", keyFile, "--processor", "newtonsoft")).AssertSuccess();

        Assert.StartsWith("{\"format\":3,", inspected.OutputText, StringComparison.Ordinal);
        JsonAssert.Equivalent(TestDocuments.Plain, decrypted.OutputText);
    }

    [Fact]
    public async Task Process_WrongKey_ExitsThreeWithOneLineAndNoOutput()
    {
        ToolRun encrypted = (await BuiltTool.RunAsync(Encoding.UTF8.GetBytes(TestDocuments.Plain), TestDocuments.EncryptArguments(_key.WriteKeyFile(_folder)))).AssertSuccess();
        TestKey other = TestKey.Random();

        ToolRun run = await BuiltTool.RunAsync(encrypted.Output, "decrypt", "--key-file", other.WriteKeyFile(_folder, "other.hex"));

        string line = run.AssertFailure(ExitCodes.BadInput, "InvalidCipherText");
        foreach (string secret in _key.Renderings().Concat(other.Renderings()).Concat(TestDocuments.Secrets))
        {
            Assert.DoesNotContain(secret, line, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task Process_UsageError_ExitsTwo()
    {
        ToolRun run = await BuiltTool.RunAsync(null, "decrypt", "--frobnicate");

        run.AssertFailure(ExitCodes.UsageError, "UsageError");
    }

    [Fact]
    public async Task Process_Help_ExitsZero()
    {
        ToolRun run = (await BuiltTool.RunAsync(null, "--help")).AssertSuccess();

        Assert.Contains("Usage:", run.OutputText, StringComparison.Ordinal);
    }
}
