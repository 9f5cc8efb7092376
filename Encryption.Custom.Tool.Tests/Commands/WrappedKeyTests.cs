using Encryption.Custom.Tool.Tests.TestSupport;

namespace Encryption.Custom.Tool.Tests.Commands;

/// <summary>decrypt with a wrapped DEK: the DEK document from a file and the key-encryption key from a local key file.</summary>
public sealed class WrappedKeyTests : IDisposable
{
    private readonly TempFolder _folder = new();

    public void Dispose() => _folder.Dispose();

    public static TheoryData<string> Kinds => new("rsa-pem", "aes-jwk");

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Decrypt_DekDocumentAndKekFile_RestoresTheDocument(string kind)
    {
        WrappedTestKey wrapped = await CreateAsync(kind);
        byte[] encrypted = await EncryptAsync(wrapped.Key);

        ToolRun run = (await InProcessTool.RunWithInputAsync(encrypted, DecryptArguments(wrapped))).AssertSuccess();

        JsonAssert.Equivalent(TestDocuments.Plain, run.OutputText);
    }

    [Fact]
    public async Task Decrypt_DekDocumentOfAnotherDek_FailsNamingTheMismatch()
    {
        WrappedTestKey wrapped = await WrappedTestKey.WithRsaPemAsync(dekId: "another-dek");
        byte[] encrypted = await EncryptAsync(wrapped.Key);

        string line = (await InProcessTool.RunWithInputAsync(encrypted, DecryptArguments(wrapped))).AssertFailure(3, "KeyUnavailable");

        Assert.Contains("\"id\" differs", line, StringComparison.Ordinal);
        AssertNothingSecret(line, wrapped);
    }

    [Fact]
    public async Task Decrypt_AnotherKeyEncryptionKey_FailsAsUnwrapFailure()
    {
        WrappedTestKey wrapped = await WrappedTestKey.WithRsaPemAsync();
        WrappedTestKey other = await WrappedTestKey.WithRsaPemAsync();
        byte[] encrypted = await EncryptAsync(wrapped.Key);
        string dekFile = _folder.Write("dek.json", wrapped.DekDocument);
        string kekFile = _folder.Write("other.pem", other.KekFileContent);

        string line = (await InProcessTool.RunWithInputAsync(encrypted, "decrypt", "--dek-file", dekFile, "--kek-file", kekFile)).AssertFailure(3, "KeyUnavailable");

        Assert.Contains("unwrapping it with the key-encryption key failed", line, StringComparison.Ordinal);
        AssertNothingSecret(line, wrapped);
    }

    [Fact]
    public async Task Decrypt_UnreadableFiles_FailWithTheirKindAndNoPath()
    {
        WrappedTestKey wrapped = await WrappedTestKey.WithAesJwkAsync();
        byte[] encrypted = await EncryptAsync(wrapped.Key);
        string dekFile = _folder.Write("dek.json", wrapped.DekDocument);
        string kekFile = _folder.Write("kek.jwk", wrapped.KekFileContent);
        string missing = _folder.File("missing-file");
        string notAKey = _folder.Write("not-a-key.pem", "-----BEGIN NOTHING-----\n-----END NOTHING-----\n");

        string noDek = (await InProcessTool.RunWithInputAsync(encrypted, "decrypt", "--dek-file", missing, "--kek-file", kekFile)).AssertFailure(3, "InvalidDekDocument");
        string noKek = (await InProcessTool.RunWithInputAsync(encrypted, "decrypt", "--dek-file", dekFile, "--kek-file", missing)).AssertFailure(3, "InvalidKeyEncryptionKeyFile");
        string badKek = (await InProcessTool.RunWithInputAsync(encrypted, "decrypt", "--dek-file", dekFile, "--kek-file", notAKey)).AssertFailure(3, "InvalidKeyEncryptionKeyFile");
        string badDek = (await InProcessTool.RunWithInputAsync(encrypted, "decrypt", "--dek-file", kekFile, "--kek-file", kekFile)).AssertFailure(3, "KeyUnavailable");

        foreach (string line in new[] { noDek, noKek, badKek, badDek })
        {
            Assert.DoesNotContain(_folder.Path, line, StringComparison.Ordinal);
            AssertNothingSecret(line, wrapped);
        }
    }

    private static async Task<WrappedTestKey> CreateAsync(string kind) =>
        kind == "rsa-pem" ? await WrappedTestKey.WithRsaPemAsync() : await WrappedTestKey.WithAesJwkAsync();

    private string[] DecryptArguments(WrappedTestKey wrapped) =>
        ["decrypt", "--dek-file", _folder.Write("dek.json", wrapped.DekDocument), "--kek-file", _folder.Write("kek", wrapped.KekFileContent)];

    private async Task<byte[]> EncryptAsync(TestKey key) =>
        (await InProcessTool.RunWithInputAsync(TestDocuments.Plain, TestDocuments.EncryptArguments(key.WriteKeyFile(_folder)))).AssertSuccess().Output;

    private static void AssertNothingSecret(string line, WrappedTestKey wrapped)
    {
        foreach (string secret in wrapped.Key.Renderings().Concat(TestDocuments.Secrets))
        {
            Assert.DoesNotContain(secret, line, StringComparison.Ordinal);
        }
    }
}
