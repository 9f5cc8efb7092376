using System.Buffers;
using System.Text;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;
using Encryption.Custom.Tool.Tests.TestSupport;

namespace Encryption.Custom.Tool.Tests.Commands;

/// <summary>The tool and the library read each other's documents, and the tool reads the wire format's known answers.</summary>
public sealed class LibraryInteropTests : IDisposable
{
    private readonly TempFolder _folder = new();
    private readonly TestKey _key = TestKey.Random();

    public void Dispose() => _folder.Dispose();

    public static TheoryData<JsonProcessor> LibraryProcessors => new(JsonProcessor.Stream, JsonProcessor.Newtonsoft);

    [Theory]
    [MemberData(nameof(LibraryProcessors))]
    public async Task Decrypt_DocumentTheLibraryEncrypted_RestoresIt(JsonProcessor libraryProcessor)
    {
        using DataEncryptionKey key = _key.CreateDataEncryptionKey();
        var options = new EncryptionOptions { DataEncryptionKeyId = TestDocuments.KeyId, PathsToEncrypt = TestDocuments.PathsToEncrypt };
        var encrypted = new ArrayBufferWriter<byte>();
        EncryptionProcessor.Create(libraryProcessor).Encrypt(Encoding.UTF8.GetBytes(TestDocuments.Plain), encrypted, key, options);

        ToolRun run = (await InProcessTool.RunWithInputAsync(encrypted.WrittenSpan.ToArray(), "decrypt", "--key-file", _key.WriteKeyFile(_folder))).AssertSuccess();

        JsonAssert.Equivalent(TestDocuments.Plain, run.OutputText);
    }

    [Theory]
    [MemberData(nameof(LibraryProcessors))]
    public async Task LibraryDecrypt_DocumentTheToolEncrypted_RestoresIt(JsonProcessor libraryProcessor)
    {
        ToolRun run = (await InProcessTool.RunWithInputAsync(TestDocuments.Plain, TestDocuments.EncryptArguments(_key.WriteKeyFile(_folder)))).AssertSuccess();
        using DataEncryptionKey key = _key.CreateDataEncryptionKey();
        var decrypted = new ArrayBufferWriter<byte>();

        DecryptionContext? context = EncryptionProcessor.Create(libraryProcessor).Decrypt(run.Output, decrypted, new SingleKeyEncryptor(TestDocuments.KeyId, key), includeDecryptionContext: true);

        JsonAssert.Equivalent(TestDocuments.Plain, Encoding.UTF8.GetString(decrypted.WrittenSpan));
        DecryptionInfo info = Assert.Single(context!.DecryptionInfoList);
        Assert.Equal(TestDocuments.KeyId, info.DataEncryptionKeyId);
        Assert.Equal(TestDocuments.EncryptedPaths, info.PathsDecrypted);
    }

    [Theory]
    [InlineData("stream")]
    [InlineData("newtonsoft")]
    public async Task Decrypt_KnownAnswerValues_RestoresThePlaintexts(string processor)
    {
        // wire-format.md §2: root key 01..20, fixed IV 00..0f; "hello", 42 and true.
        const string Encrypted =
            "{\"id\":\"kat\","
            + "\"s\":\"AgFPKXw7s9jtbwh7oU9mEKdwJWAUgB8pr4hti+1nvIfcoQABAgMEBQYHCAkKCwwNDg92uiY0TEw4p5D3+lQLmRnj\","
            + "\"l\":\"BAHzvw7xKshA+BLmTMyKy19z2IcniZw1mazo+B7A3IzQ8gABAgMEBQYHCAkKCwwNDg9Nd7RrEgaV6utmtwr3e/xv\","
            + "\"b\":\"BQGhALrHEJ/VDddKse4eoT0HUisSXHfuL3Qm4Nhleo2TcQABAgMEBQYHCAkKCwwNDg9Xtd6h3d59y8Xi+aJ8Zf0f\","
            + "\"_ei\":{\"_ef\":3,\"_en\":\"fixtureDek\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ed\":null,\"_ep\":[\"/s\",\"/l\",\"/b\"]}}";
        string keyFile = TestKey.KnownAnswer().WriteKeyFile(_folder);

        ToolRun run = (await InProcessTool.RunWithInputAsync(Encrypted, "decrypt", "--key-file", keyFile, "--processor", processor)).AssertSuccess();

        JsonAssert.Equivalent("""{"id":"kat","s":"hello","l":42,"b":true}""", run.OutputText);
    }

    [Theory]
    [InlineData("stream")]
    [InlineData("newtonsoft")]
    public async Task Decrypt_LegacyFormatTwoDocument_RestoresThePropertiesWithTheSameKeyFile(string processor)
    {
        using DataEncryptionKey legacy = _key.CreateDataEncryptionKey(CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized);
        string document = LegacyDocument(legacy);

        ToolRun run = (await InProcessTool.RunWithInputAsync(document, "decrypt", "--key-file", _key.WriteKeyFile(_folder), "--processor", processor)).AssertSuccess();

        JsonAssert.Equivalent("""{"id":"1","plain":true,"ssn":"123-45-6789","n":5}""", run.OutputText);
    }

    [Fact]
    public async Task Inspect_LegacyFormatTwoDocument_ReportsFormatTwo()
    {
        using DataEncryptionKey legacy = _key.CreateDataEncryptionKey(CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized);

        ToolRun run = (await InProcessTool.RunWithInputAsync(LegacyDocument(legacy), "inspect")).AssertSuccess();

        Assert.Equal("""{"format":2,"algorithm":"AEAes256CbcHmacSha256Randomized","dekId":"legacyDek","paths":["/ssn","/n"]}""" + "\n", run.OutputText);
    }

    // Format 2 (wire-format.md §3.3): the properties serialized together, encrypted once with the legacy algorithm.
    private static string LegacyDocument(DataEncryptionKey legacyKey)
    {
        string blob = Convert.ToBase64String(legacyKey.EncryptData(Encoding.UTF8.GetBytes("""{"ssn":"123-45-6789","n":5}""")));
        return """{"id":"1","plain":true,"_ei":{"_ef":2,"_en":"legacyDek","_ea":"AEAes256CbcHmacSha256Randomized","_ed":""" + "\"" + blob + "\"" + ""","_ep":["/ssn","/n"]}}""";
    }
}
