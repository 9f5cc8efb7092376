using System.Text;
using Encryption.Custom.Cosmos.Patch;
using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Cosmos.Serialization;
using Encryption.Custom.Json;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;
using Encryption.Custom.Tests.TestSupport;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos.Patch;

/// <summary>How a patch is rewritten for a format 3 document (top-level paths; pure: no container involved).</summary>
public sealed class PatchRewriterTopLevelTests : IDisposable
{
    private const string Dek = "dek";
    private static readonly CosmosSerializer s_serializer = new NewtonsoftItemSerializer(null);

    private readonly DataEncryptionKey _key = TestKeys.Create(TestKeyKind.Protected);
    private readonly TestEncryptor _encryptor;
    private readonly StreamProcessor _processor = new();

    public PatchRewriterTopLevelTests()
    {
        _encryptor = new TestEncryptor().Add(Dek, _key);
    }

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static EnvelopeMetadata Stored(params string[] paths) =>
        EnvelopeMetadata.Create(3, Dek, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, [.. paths]);

    public void Dispose() => _key.Dispose();

    private async Task<(IReadOnlyList<PatchOperation> Operations, EnvelopeMetadata? Envelope)> TransformAsync(
        IReadOnlyList<PatchOperation> operations, EnvelopeMetadata? stored, EncryptionOptions? requested = null, ContainerEncryptionPolicy? policy = null)
    {
        PatchRewrite rewrite = await ReplaceOrSendAsync(operations, stored, requested, policy);
        Assert.Null(rewrite.ReplaceReason);
        return (rewrite.Operations!, rewrite.Envelope);
    }

    private Task<PatchRewrite> ReplaceOrSendAsync(IReadOnlyList<PatchOperation> operations, EnvelopeMetadata? stored, EncryptionOptions? requested = null, ContainerEncryptionPolicy? policy = null) =>
        PatchRewriting.RewriteAsync(operations, requested, new PatchCrypto(policy?.Rules, _processor, _encryptor, s_serializer), stored);

    private static JToken Value(PatchOperation operation)
    {
        Assert.True(operation.TrySerializeValueParameter(s_serializer, out Stream? stream));
        using var reader = new StreamReader(stream!);
        return JToken.Parse(reader.ReadToEnd());
    }

    /// <summary>Decrypts values the transformer produced by placing them in a document with the given metadata.</summary>
    private JObject DecryptAsDocument(Dictionary<string, JToken> values, IReadOnlyList<string> paths)
    {
        var document = new JObject { ["id"] = "x" };
        foreach ((string name, JToken value) in values)
        {
            document[name] = value;
        }

        document["_ei"] = new JObject { ["_ef"] = 3, ["_en"] = Dek, ["_ea"] = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, ["_ed"] = null, ["_ep"] = new JArray(paths) };
        var output = new System.Buffers.ArrayBufferWriter<byte>();
        _processor.Decrypt(Encoding.UTF8.GetBytes(document.ToString(Newtonsoft.Json.Formatting.None)), output, _encryptor);
        return JObject.Parse(Encoding.UTF8.GetString(output.WrittenSpan));
    }

    [Fact]
    public async Task Transform_SetOnEncryptedPaths_EncryptsEveryJsonTypeAndKeepsMetadata()
    {
        (IReadOnlyList<PatchOperation> operations, EnvelopeMetadata? after) = await TransformAsync(
            [
                PatchOperation.Set("/s", "text é😀"),
                PatchOperation.Replace("/n", 9007199254740993L),
                PatchOperation.Add("/d", -2.5),
                PatchOperation.Set("/b", true),
                PatchOperation.Set("/o", new { inner = "x", list = new[] { 1, 2 } }),
                PatchOperation.Set("/a", new object[] { 1, "two", false }),
                PatchOperation.Set("/plain", "visible"),
            ],
            Stored("/s", "/n", "/d", "/b", "/o", "/a"));

        Assert.Equal(7, operations.Count);
        Assert.Equal([PatchOperationType.Set, PatchOperationType.Replace, PatchOperationType.Add, PatchOperationType.Set, PatchOperationType.Set, PatchOperationType.Set, PatchOperationType.Set], operations.Select(o => o.OperationType));
        Assert.All(operations.Take(6), o => Assert.Equal(JTokenType.String, Value(o).Type));
        Assert.Equal("visible", (string?)Value(operations[6]));
        Assert.Equal(["/s", "/n", "/d", "/b", "/o", "/a"], after!.Paths);
        JObject decrypted = DecryptAsDocument(operations.Take(6).ToDictionary(o => o.Path[1..], Value), after.Paths);
        Assert.Equal("text é😀", (string?)decrypted["s"]);
        Assert.Equal(9007199254740993L, (long)decrypted["n"]!);
        Assert.Equal(-2.5, (double)decrypted["d"]!);
        Assert.True((bool)decrypted["b"]!);
        Assert.Equal("""{"inner":"x","list":[1,2]}""", decrypted["o"]!.ToString(Newtonsoft.Json.Formatting.None));
        Assert.Equal("""[1,"two",false]""", decrypted["a"]!.ToString(Newtonsoft.Json.Formatting.None));
    }

    [Fact]
    public async Task Transform_NothingEncrypted_ReturnsTheSameOperations()
    {
        IReadOnlyList<PatchOperation> original = [PatchOperation.Set("/a", 1), PatchOperation.Increment("/n", 2), PatchOperation.Move("/x", "/y")];

        (IReadOnlyList<PatchOperation> unencrypted, EnvelopeMetadata? none) = await TransformAsync(original, null);
        (IReadOnlyList<PatchOperation> otherPaths, EnvelopeMetadata? same) = await TransformAsync(original, Stored("/secret"));

        Assert.Same(original, unencrypted);
        Assert.Null(none);
        Assert.Equal(original.Select(o => o.Path), otherPaths.Select(o => o.Path));
        Assert.Equal(["/secret"], same!.Paths);
    }

    [Fact]
    public async Task Transform_RemoveAndSetNull_DropThePathFromMetadata()
    {
        (IReadOnlyList<PatchOperation> operations, EnvelopeMetadata? after) = await TransformAsync(
            [PatchOperation.Remove("/a"), PatchOperation.Set<string?>("/b", null)], Stored("/a", "/b", "/c"));

        Assert.Equal(3, operations.Count);
        Assert.Equal(PatchOperationType.Remove, operations[0].OperationType);
        Assert.Equal(JTokenType.Null, Value(operations[1]).Type);
        Assert.Equal("/_ei/_ep", operations[2].Path);
        Assert.Equal(["/c"], Value(operations[2]).Values<string>());
        Assert.Equal(["/c"], after!.Paths);
    }

    [Fact]
    public async Task Transform_RequestedPathNotYetEncrypted_EncryptsAndAddsItToMetadata()
    {
        (IReadOnlyList<PatchOperation> operations, EnvelopeMetadata? after) = await TransformAsync(
            [PatchOperation.Set("/notes", "now secret")], Stored("/a"), new EncryptionOptions { DataEncryptionKeyId = "other", PathsToEncrypt = ["/notes"] });

        Assert.Equal(2, operations.Count);
        Assert.NotEqual("now secret", (string?)Value(operations[0]));
        Assert.Equal(["/a", "/notes"], Value(operations[1]).Values<string>());

        // The document's key, not the request's: one document has one key.
        Assert.Equal(Dek, after!.DataEncryptionKeyId);
        Assert.Equal("now secret", (string?)DecryptAsDocument(new() { ["notes"] = Value(operations[0]) }, ["/notes"])["notes"]);
    }

    [Fact]
    public async Task Transform_UnencryptedDocumentWithRequest_AddsTheWholeMetadata()
    {
        (IReadOnlyList<PatchOperation> operations, EnvelopeMetadata? after) = await TransformAsync(
            [PatchOperation.Set("/ssn", "1")], null, new EncryptionOptions { DataEncryptionKeyId = Dek, PathsToEncrypt = ["/ssn", "/other"] });

        Assert.Equal(2, operations.Count);
        Assert.Equal("/_ei", operations[1].Path);
        JObject envelope = (JObject)Value(operations[1]);
        Assert.Equal(3, (int)envelope["_ef"]!);
        Assert.Equal(Dek, (string?)envelope["_en"]);
        Assert.Equal(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, (string?)envelope["_ea"]);
        Assert.Equal(["/ssn"], envelope["_ep"]!.Values<string>());
        Assert.Equal(["/ssn"], after!.Paths);
    }

    [Theory]
    [InlineData("increment")]
    [InlineData("nested")]
    [InlineData("move-from")]
    [InlineData("move-to")]
    public async Task Transform_OperationsThatCannotWorkOnCiphertext_Throw(string kind)
    {
        PatchOperation operation = kind switch
        {
            "increment" => PatchOperation.Increment("/n", 1),
            "nested" => PatchOperation.Set("/o/inner", 1),
            "move-from" => PatchOperation.Move("/n", "/plain"),
            _ => PatchOperation.Move("/plain", "/o"),
        };

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(async () => await TransformAsync([operation], Stored("/n", "/o")));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Equal(Dek, error.DataEncryptionKeyId);
    }

    [Theory]
    [InlineData("move-from")]
    [InlineData("move-to")]
    [InlineData("eleven")]
    public async Task Transform_WhatAPatchCannotCarry_IsAnsweredWithTheReplaceUnderOptions(string kind)
    {
        PatchOperation[] operations = kind switch
        {
            "move-from" => [PatchOperation.Move("/n", "/plain")],
            "move-to" => [PatchOperation.Move("/plain", "/o")],
            _ => [.. Enumerable.Range(0, 10).Select(i => PatchOperation.Set("/p" + i, i)), PatchOperation.Set("/n", 1)],
        };
        var requested = new EncryptionOptions { DataEncryptionKeyId = Dek, PathsToEncrypt = ["/n", "/o"] };

        PatchRewrite rewrite = await ReplaceOrSendAsync(operations, Stored("/n", "/o"), requested);

        Assert.Null(rewrite.Operations);
        Assert.Contains(kind == "eleven" ? "operations" : "move", rewrite.ReplaceReason, StringComparison.Ordinal);
    }

    [Fact]
    public void Plan_RefusesWithoutTheDocument()
    {
        var requested = new EncryptionOptions { DataEncryptionKeyId = Dek, PathsToEncrypt = ["/n"] };

        Assert.Throws<EncryptionException>(() => PatchRewriting.Plan([PatchOperation.Increment("/n", 1)], requested));
        Assert.Throws<EncryptionException>(() => PatchRewriting.Plan([PatchOperation.Set("/_ei/_en", "x")], null));
        Assert.Throws<EncryptionException>(() => PatchRewriting.Plan([PatchOperation.Set("/x", 1)], new EncryptionOptions { DataEncryptionKeyId = Dek, PathsToEncrypt = ["/id"] }));
        PatchRewriting.Plan([PatchOperation.Increment("/other", 1)], requested);
    }

    [Fact]
    public async Task Transform_LegacyFormatDocument_IsRefusedWithoutOptionsAndReplacedWithThem()
    {
        EnvelopeMetadata legacy = EnvelopeMetadata.Create(2, Dek, CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized, ["/a"]);

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(async () => await TransformAsync([PatchOperation.Set("/a", 1)], legacy));
        (IReadOnlyList<PatchOperation> untouched, _) = await TransformAsync([PatchOperation.Set("/b", 1)], legacy);
        PatchRewrite replaced = await ReplaceOrSendAsync([PatchOperation.Set("/a", 1)], legacy, new EncryptionOptions { DataEncryptionKeyId = Dek, PathsToEncrypt = ["/c"] });

        Assert.Equal(EncryptionErrorKind.UnsupportedFormat, error.Kind);
        Assert.Single(untouched);

        // With options the replace writes the document as they say (format 3): the one blob is converted.
        Assert.Contains("format 2", replaced.ReplaceReason, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("/a~1b", "/a~1b")]
    [InlineData("/a~01b", "/a~1b")]
    [InlineData("/x~0y", "/x~0y")]
    [InlineData("/x~0y", "/x~y")]
    [InlineData("/a~1b~0c", "/a/b~c")]
    public async Task Transform_PointerEscapeWhoseLiteralOrDecodedNameIsEncrypted_IsRefused(string path, string encrypted)
    {
        // The service documents RFC 6901 escapes, the bundled endpoint reads names literally (as Microsoft's package
        // compares them): when the two readings differ and either names an encrypted property, no form is safe.
        PatchOperation[] operations = [PatchOperation.Set(path, "v"), PatchOperation.Add(path, "v"), PatchOperation.Replace(path, "v"), PatchOperation.Remove(path), PatchOperation.Move("/other", path), PatchOperation.Move(path, "/other")];

        foreach (PatchOperation operation in operations)
        {
            EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(async () => await TransformAsync([operation], Stored(encrypted)));
            Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);

            // The request's own paths are checked the same way before the document is read (they cannot be nested).
            if (encrypted.IndexOf('/', 1) < 0)
            {
                EncryptionException early = Assert.Throws<EncryptionException>(() => PatchRewriting.Plan([operation], new EncryptionOptions { DataEncryptionKeyId = Dek, PathsToEncrypt = [encrypted] }));
                Assert.Equal(EncryptionErrorKind.InvalidOptions, early.Kind);
            }
        }
    }

    [Fact]
    public async Task Transform_PointerEscapeOnPlainProperties_PassesThrough()
    {
        (IReadOnlyList<PatchOperation> operations, _) = await TransformAsync([PatchOperation.Set("/a~1b", "v"), PatchOperation.Set("/x~0y", "w")], Stored("/ssn"));

        Assert.Equal("v", (string?)Value(operations[0]));
        Assert.Equal("w", (string?)Value(operations[1]));
    }

    [Fact]
    public async Task Transform_NumberBeyondInt64_IsRefusedNamingThePatchPath()
    {
        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(async () =>
            await TransformAsync([PatchOperation.Set("/n", System.Numerics.BigInteger.Parse("9223372036854775808", System.Globalization.CultureInfo.InvariantCulture))], Stored("/n")));

        Assert.Equal(EncryptionErrorKind.LimitExceeded, error.Kind);
        Assert.Equal("/n", error.Path);
        Assert.DoesNotContain("9223372036854775808", error.Message, StringComparison.Ordinal);
    }
}
