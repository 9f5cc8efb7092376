using System.Text.Json.Nodes;
using Encryption.Custom.Tool.Tests.TestSupport;

namespace Encryption.Custom.Tool.Tests.Commands;

/// <summary>encrypt → decrypt through the tool's entry point, for both processors and across them.</summary>
public sealed class RoundTripTests : IDisposable
{
    private readonly TempFolder _folder = new();
    private readonly TestKey _key = TestKey.Random();

    public void Dispose() => _folder.Dispose();

    public static MatrixTheoryData<string, string> ProcessorPairs => new(["stream", "newtonsoft"], ["stream", "newtonsoft"]);

    [Theory]
    [MemberData(nameof(ProcessorPairs))]
    public async Task EncryptThenDecrypt_ProcessorPair_RestoresTheDocument(string encryptWith, string decryptWith)
    {
        string keyFile = _key.WriteKeyFile(_folder);

        ToolRun encrypted = (await InProcessTool.RunWithInputAsync(TestDocuments.Plain, TestDocuments.EncryptArguments(keyFile, encryptWith))).AssertSuccess();
        ToolRun decrypted = (await InProcessTool.RunWithInputAsync(encrypted.Output, "decrypt", "--key-file", keyFile, "--processor", decryptWith)).AssertSuccess();

        JsonAssert.Equivalent(TestDocuments.Plain, decrypted.OutputText);
    }

    [Theory]
    [InlineData("stream")]
    [InlineData("newtonsoft")]
    public async Task Encrypt_ProcessorChoice_EncryptsTheListedPropertiesAndWritesTheMetadata(string processor)
    {
        string keyFile = _key.WriteKeyFile(_folder);

        ToolRun encrypted = (await InProcessTool.RunWithInputAsync(TestDocuments.Plain, TestDocuments.EncryptArguments(keyFile, processor))).AssertSuccess();

        JsonObject document = JsonNode.Parse(encrypted.OutputText)!.AsObject();
        foreach (string path in TestDocuments.EncryptedPaths)
        {
            Assert.Equal(System.Text.Json.JsonValueKind.String, document[path[1..]]!.GetValueKind());
        }

        Assert.Equal("visible", (string?)document["plain"]);
        Assert.Null(document["nothing"]);
        Assert.Equal(3, (int)document["_ei"]!["_ef"]!);
        Assert.Equal(TestDocuments.KeyId, (string?)document["_ei"]!["_en"]);
        Assert.Equal(TestDocuments.EncryptedPaths, document["_ei"]!["_ep"]!.AsArray().Select(p => (string)p!));
        foreach (string secret in TestDocuments.Secrets)
        {
            Assert.DoesNotContain(secret, encrypted.OutputText, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task EncryptThenDecrypt_StreamProcessor_RestoresTheExactBytes()
    {
        // Untouched bytes are copied verbatim, whitespace and escapes included; decrypted values come back compact.
        const string Document = "{ \"id\" : \"x\",\n  \"plain\": \"caf\\u00e9\",\n  \"ssn\":\"123-45-6789\" }\n";
        string keyFile = _key.WriteKeyFile(_folder);

        ToolRun encrypted = (await InProcessTool.RunWithInputAsync(Document, "encrypt", "--key-file", keyFile, "--dek-id", "d", "--path", "/ssn")).AssertSuccess();
        ToolRun decrypted = (await InProcessTool.RunWithInputAsync(encrypted.Output, "decrypt", "--key-file", keyFile)).AssertSuccess();

        Assert.Equal(Document, decrypted.OutputText);
    }

    [Fact]
    public async Task EncryptThenDecrypt_InAndOutFiles_WritesOnlyTheOutputFiles()
    {
        string keyFile = _key.WriteKeyFile(_folder, "k.hex");
        string input = _folder.Write("plain.json", TestDocuments.Plain);

        ToolRun encrypt = (await InProcessTool.RunAsync([.. TestDocuments.EncryptArguments(keyFile), "--in", input, "--out", _folder.File("enc.json")])).AssertSuccess();
        ToolRun decrypt = (await InProcessTool.RunAsync("decrypt", "--key-file", keyFile, "--in", _folder.File("enc.json"), "--out", _folder.File("dec.json"))).AssertSuccess();

        Assert.Empty(encrypt.Output);
        Assert.Empty(decrypt.Output);
        Assert.Equal(["dec.json", "enc.json", "k.hex", "plain.json"], _folder.FileNames());
        JsonAssert.Equivalent(TestDocuments.Plain, File.ReadAllText(_folder.File("dec.json")));
    }

    [Fact]
    public async Task EncryptInPlace_SameInAndOut_ReplacesTheFile()
    {
        string keyFile = _key.WriteKeyFile(_folder, "k.hex");
        string document = _folder.Write("doc.json", TestDocuments.Plain);

        (await InProcessTool.RunAsync([.. TestDocuments.EncryptArguments(keyFile), "--in", document, "--out", document])).AssertSuccess();
        (await InProcessTool.RunAsync("decrypt", "--key-file", keyFile, "--in", document, "--out", document)).AssertSuccess();

        JsonAssert.Equivalent(TestDocuments.Plain, File.ReadAllText(document));
        Assert.Equal(["doc.json", "k.hex"], _folder.FileNames());
    }

    [Fact]
    public async Task Encrypt_ExistingOutputFile_IsReplacedAndOwnerOnly()
    {
        string keyFile = _key.WriteKeyFile(_folder);
        string output = _folder.Write("out.json", "previous content");

        (await InProcessTool.RunWithInputAsync(TestDocuments.Plain, [.. TestDocuments.EncryptArguments(keyFile), "--out", output])).AssertSuccess();

        Assert.Contains("\"_ei\"", File.ReadAllText(output), StringComparison.Ordinal);
        if (!OperatingSystem.IsWindows())
        {
            Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(output));
        }
    }

    [Theory]
    [InlineData("stream")]
    [InlineData("newtonsoft")]
    public async Task Decrypt_UnencryptedDocument_WritesItUnchanged(string processor)
    {
        string keyFile = _key.WriteKeyFile(_folder);

        ToolRun run = (await InProcessTool.RunWithInputAsync(TestDocuments.Plain, "decrypt", "--key-file", keyFile, "--processor", processor)).AssertSuccess();

        Assert.Equal(TestDocuments.Plain, run.OutputText);
    }

    [Fact]
    public async Task Decrypt_KeyFileWrittenDifferently_UsesTheSameKey()
    {
        // The same key written differently (upper case, CRLF, leading spaces) is the same key.
        string encryptKey = _key.WriteKeyFile(_folder, "a.hex");
        string decryptKey = _folder.Write("b.hex", "   " + _key.Hex.ToUpperInvariant() + "\r\n");

        ToolRun encrypted = (await InProcessTool.RunWithInputAsync(TestDocuments.Plain, TestDocuments.EncryptArguments(encryptKey))).AssertSuccess();
        ToolRun decrypted = (await InProcessTool.RunWithInputAsync(encrypted.Output, "decrypt", "--key-file", decryptKey)).AssertSuccess();

        JsonAssert.Equivalent(TestDocuments.Plain, decrypted.OutputText);
    }
}
