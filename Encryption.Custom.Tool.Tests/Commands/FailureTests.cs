using System.Buffers;
using System.Text;
using System.Text.Json.Nodes;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;
using Encryption.Custom.Tool.Tests.TestSupport;

namespace Encryption.Custom.Tool.Tests.Commands;

/// <summary>
/// Every failure the tool promises to report: its exit code, exactly one line on standard error with the error
/// kind (and the DEK id and path where known), no key, plaintext or ciphertext in that line, nothing on standard
/// output, no <c>--out</c> file created and an existing one left untouched, no temporary file left behind.
/// </summary>
public sealed class FailureTests : IDisposable
{
    private const string PreviousContent = "previous content, must survive a failure";

    private static readonly Dictionary<string, FailureCase> s_cases = new FailureCase[]
    {
        // Bad input: exit code 3.
        new("encrypt-malformed-json", ExitCodes.BadInput, "MalformedDocument", f => f.Encrypt("""{"id":"1","ssn":"123-45-6789",""")),
        new("encrypt-root-not-object", ExitCodes.BadInput, "MalformedDocument", f => f.Encrypt("""["123-45-6789"]""")),
        new("encrypt-already-encrypted", ExitCodes.BadInput, "MalformedDocument", f => f.Encrypt(f.Encrypted)),
        new("encrypt-integer-beyond-int64", ExitCodes.BadInput, "LimitExceeded", f => f.Encrypt("""{"id":"1","salary":98765000000000000000000}"""), "path '/salary'"),
        new("decrypt-malformed-json", ExitCodes.BadInput, "MalformedDocument", f => f.Decrypt(f.Encrypted[..^12])),
        new("decrypt-wrong-key", ExitCodes.BadInput, "InvalidCipherText", f => f.Decrypt(f.Encrypted, f.OtherKeyFile), "dekId 'dek-1'", "path '/"),
        new("decrypt-tampered-value", ExitCodes.BadInput, "InvalidCipherText", f => f.Decrypt(f.Tampered), "dekId 'dek-1'", "path '/ssn'"),
        new("decrypt-unsupported-format", ExitCodes.BadInput, "UnsupportedFormat", f => f.Decrypt(f.Encrypted.Replace("\"_ef\":3", "\"_ef\":4", StringComparison.Ordinal)), "version 4"),
        new("decrypt-unsupported-algorithm", ExitCodes.BadInput, "UnsupportedFormat", f => f.Decrypt(f.Encrypted.Replace("MdeAeadAes256CbcHmac256Randomized", "Rot13", StringComparison.Ordinal)), "Rot13"),
        new("decrypt-bad-base64", ExitCodes.BadInput, "InvalidEncryptedValue", f => f.Decrypt(f.WithSsn("@@@@")), "path '/ssn'"),
        new("key-file-too-short", ExitCodes.BadInput, "InvalidKeyFile", f => f.Decrypt(f.Encrypted, f.KeyFileWith(f.Key.Hex[..62])), "fewer than 64"),
        new("key-file-too-long", ExitCodes.BadInput, "InvalidKeyFile", f => f.Decrypt(f.Encrypted, f.KeyFileWith(f.Key.Hex + "00")), "more than 64"),
        new("key-file-not-hex", ExitCodes.BadInput, "InvalidKeyFile", f => f.Encrypt(TestDocuments.Plain, f.KeyFileWith(f.Key.Hex[..63] + "g")), "neither a hexadecimal digit"),
        new("key-file-empty", ExitCodes.BadInput, "InvalidKeyFile", f => f.Decrypt(f.Encrypted, f.KeyFileWith(string.Empty)), "no hexadecimal digits"),
        new("key-file-missing", ExitCodes.BadInput, "InvalidKeyFile", f => f.Decrypt(f.Encrypted, f.Folder.File("absent.hex")), "does not exist"),
        new("input-file-missing", ExitCodes.BadInput, "InputUnavailable", f => f.Decrypt(null, extra: ["--in", f.Folder.File("absent.json")])),

        // Usage errors: exit code 2.
        new("usage-unknown-option", ExitCodes.UsageError, "UsageError", f => f.Decrypt(f.Encrypted, extra: ["--verbose"]), "--verbose"),
        new("usage-missing-key-file", ExitCodes.UsageError, "UsageError", f => (["decrypt", "--out", f.Output], Encoding.UTF8.GetBytes(f.Encrypted)), "--key-file"),
        new("usage-array-index-path", ExitCodes.UsageError, "UsageError", f => f.Encrypt(TestDocuments.Plain, paths: ["/cards/0/number"]), "/cards/0/number"),
        new("usage-path-without-slash", ExitCodes.UsageError, "UsageError", f => f.Encrypt(TestDocuments.Plain, paths: ["ssn"])),
        new("usage-repeated-path", ExitCodes.UsageError, "UsageError", f => f.Encrypt(TestDocuments.Plain, paths: ["/ssn", "/ssn"])),
        new("usage-id-path", ExitCodes.UsageError, "UsageError", f => f.Encrypt(TestDocuments.Plain, paths: ["/id"])),
        new("usage-empty-dek-id", ExitCodes.UsageError, "UsageError", f => f.Encrypt(TestDocuments.Plain, dekId: string.Empty), "--dek-id"),
        new("usage-unknown-processor", ExitCodes.UsageError, "UsageError", f => f.Decrypt(f.Encrypted, extra: ["--processor", "fast"])),
        new("usage-unknown-command", ExitCodes.UsageError, "UsageError", f => (["decrpyt", "--out", f.Output], [])),
    }.ToDictionary(c => c.Name);

    private readonly Fixture _fixture = new();

    public void Dispose() => _fixture.Dispose();

    public static MatrixTheoryData<string, string, bool> Cases => new(s_cases.Keys, ["stream", "newtonsoft"], [false, true]);

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Run_FailingCase_ReportsOneLineWritesNothingAndLeavesOutUntouched(string name, string processor, bool outputExists)
    {
        FailureCase failure = s_cases[name];
        _fixture.Processor = processor;
        (string[] args, byte[] stdin) = failure.Build(_fixture);
        if (outputExists)
        {
            File.WriteAllText(_fixture.Output, PreviousContent);
        }

        string[] filesBefore = _fixture.Folder.FileNames();

        ToolRun run = await InProcessTool.RunWithInputAsync(stdin, args);

        string line = run.AssertFailure(failure.ExitCode, failure.Kind);
        foreach (string fragment in failure.ExpectedFragments)
        {
            Assert.Contains(fragment, line, StringComparison.Ordinal);
        }

        foreach (string secret in _fixture.Secrets())
        {
            Assert.DoesNotContain(secret, line, StringComparison.Ordinal);
        }

        Assert.Equal(filesBefore, _fixture.Folder.FileNames());
        if (outputExists)
        {
            Assert.Equal(PreviousContent, File.ReadAllText(_fixture.Output));
        }
    }

    [Fact]
    public async Task Run_OutputFolderMissing_FailsWithExitCodeOneAndCreatesNothing()
    {
        string output = Path.Combine(_fixture.Folder.Path, "absent", "out.json");
        string[] filesBefore = _fixture.Folder.FileNames();

        ToolRun run = await InProcessTool.RunWithInputAsync(TestDocuments.Plain, [.. TestDocuments.EncryptArguments(_fixture.KeyFile), "--out", output]);

        run.AssertFailure(ExitCodes.Failure, "OutputFailed");
        Assert.Equal(filesBefore, _fixture.Folder.FileNames());
        Assert.False(Directory.Exists(Path.GetDirectoryName(output)));
    }

    /// <summary>One failing run: how to build it, and what it must report.</summary>
    private sealed record FailureCase(string Name, int ExitCode, string Kind, Func<Fixture, (string[] Args, byte[] Stdin)> Build, params string[] ExpectedFragments);

    /// <summary>A folder with a key file, a second key, and a document the library encrypted with the first.</summary>
    private sealed class Fixture : IDisposable
    {
        public Fixture()
        {
            KeyFile = Key.WriteKeyFile(Folder, "key.hex");
            OtherKeyFile = OtherKey.WriteKeyFile(Folder, "other.hex");
            Output = Folder.File("out.json");
            using DataEncryptionKey key = Key.CreateDataEncryptionKey();
            var written = new ArrayBufferWriter<byte>();
            new StreamProcessor().Encrypt(
                Encoding.UTF8.GetBytes(TestDocuments.Plain),
                written,
                key,
                new EncryptionOptions { DataEncryptionKeyId = TestDocuments.KeyId, PathsToEncrypt = TestDocuments.PathsToEncrypt });
            Encrypted = Encoding.UTF8.GetString(written.WrittenSpan);

            // One bit of the /ssn cell's tag flipped: authentic base64 and length, inauthentic value.
            byte[] cell = Convert.FromBase64String(CipherTexts()[0]);
            cell[10] ^= 0x01;
            Tampered = WithSsn(Convert.ToBase64String(cell));
        }

        public TempFolder Folder { get; } = new();

        public TestKey Key { get; } = TestKey.Random();

        public TestKey OtherKey { get; } = TestKey.Random();

        public string KeyFile { get; }

        public string OtherKeyFile { get; }

        public string Output { get; }

        public string Encrypted { get; }

        public string Tampered { get; }

        public string Processor { get; set; } = "stream";

        public (string[] Args, byte[] Stdin) Encrypt(string document, string? keyFile = null, string[]? paths = null, string dekId = TestDocuments.KeyId) =>
        (
            [
                "encrypt", "--key-file", keyFile ?? KeyFile, "--dek-id", dekId,
                .. (paths ?? TestDocuments.PathsToEncrypt).SelectMany(p => new[] { "--path", p }),
                "--processor", Processor, "--out", Output,
            ],
            Encoding.UTF8.GetBytes(document)
        );

        public (string[] Args, byte[] Stdin) Decrypt(string? document, string? keyFile = null, string[]? extra = null) =>
        (
            ["decrypt", "--key-file", keyFile ?? KeyFile, "--processor", Processor, "--out", Output, .. extra ?? []],
            document is null ? [] : Encoding.UTF8.GetBytes(document)
        );

        public string KeyFileWith(string content) => Folder.Write("bad.hex", content);

        public string WithSsn(string value)
        {
            JsonObject document = JsonNode.Parse(Encrypted)!.AsObject();
            document["ssn"] = value;
            return document.ToJsonString();
        }

        /// <summary>The base64 values of the encrypted properties, /ssn first.</summary>
        public string[] CipherTexts()
        {
            JsonObject document = JsonNode.Parse(Encrypted)!.AsObject();
            return TestDocuments.EncryptedPaths.Select(p => (string)document[p[1..]]!).ToArray();
        }

        /// <summary>Everything an error line must never contain.</summary>
        public IEnumerable<string> Secrets() =>
            Key.Renderings().Concat(OtherKey.Renderings()).Concat(TestDocuments.Secrets).Concat(CipherTexts())
                .Append((string)JsonNode.Parse(Tampered)!["ssn"]!);

        public void Dispose() => Folder.Dispose();
    }
}
