using System.Text.Json;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary>
/// The contract both processors meet, over every shape of the registry: round trips, each other's output, what
/// the metadata lists, what stays verbatim.
/// </summary>
public abstract class ProcessorContractTests : IDisposable
{
    private readonly DataEncryptionKey _key;
    private readonly TestEncryptor _encryptor = new();

    protected ProcessorContractTests(TestKeyKind keyKind)
    {
        KeyKind = keyKind;
        _key = TestKeys.Create(keyKind);
        _encryptor.Add(DocumentShapes.KeyId, _key);
    }

    public static MatrixTheoryData<JsonProcessor, string> ProcessorsAndShapes => DocumentShapes.ProcessorsAndNames;

    public static MatrixTheoryData<JsonProcessor, JsonProcessor, string> CrossShapes => DocumentShapes.CrossNames;

    public static TheoryData<string> Shapes => DocumentShapes.Names;

    protected TestKeyKind KeyKind { get; }

    public void Dispose()
    {
        _key.Dispose();
        GC.SuppressFinalize(this);
    }

    [Theory]
    [MemberData(nameof(ProcessorsAndShapes))]
    public void EncryptThenDecrypt_AnyShape_GivesTheSameJsonValue(JsonProcessor kind, string shapeName)
    {
        DocumentShape shape = DocumentShapes.Get(shapeName);
        EncryptionProcessor processor = Processors.Create(kind);

        byte[] encrypted = processor.Encrypt(shape.Utf8, _key, shape.Options());
        byte[] decrypted = processor.Decrypt(encrypted, _encryptor);

        JsonAssert.Equivalent(shape.Utf8, decrypted);
    }

    [Theory]
    [MemberData(nameof(CrossShapes))]
    public void Decrypt_OutputOfEitherProcessor_GivesTheSameJsonValue(JsonProcessor encryptWith, JsonProcessor decryptWith, string shapeName)
    {
        DocumentShape shape = DocumentShapes.Get(shapeName);

        byte[] encrypted = Processors.Create(encryptWith).Encrypt(shape.Utf8, _key, shape.Options());
        byte[] decrypted = Processors.Create(decryptWith).Decrypt(encrypted, _encryptor);

        JsonAssert.Equivalent(shape.Utf8, decrypted);
    }

    [Theory]
    [MemberData(nameof(ProcessorsAndShapes))]
    public void Encrypt_AnyShape_ReplacesPresentValuesWithBase64AndListsThemLast(JsonProcessor kind, string shapeName)
    {
        DocumentShape shape = DocumentShapes.Get(shapeName);
        using JsonDocument original = JsonDocument.Parse(shape.Json);

        byte[] encrypted = Processors.Create(kind).Encrypt(shape.Utf8, _key, shape.Options());

        using JsonDocument document = JsonDocument.Parse(encrypted);
        List<JsonProperty> properties = document.RootElement.EnumerateObject().ToList();
        JsonProperty envelope = properties[^1];
        Assert.Equal("_ei", envelope.Name);
        Assert.Equal(3, envelope.Value.GetProperty("_ef").GetInt32());
        Assert.Equal(DocumentShapes.KeyId, envelope.Value.GetProperty("_en").GetString());
        Assert.Equal(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, envelope.Value.GetProperty("_ea").GetString());
        Assert.Equal(JsonValueKind.Null, envelope.Value.GetProperty("_ed").ValueKind);

        string[] expectedPaths = shape.Paths
            .Where(p => original.RootElement.TryGetProperty(p[1..], out JsonElement value) && value.ValueKind != JsonValueKind.Null)
            .ToArray();
        string[] listed = envelope.Value.GetProperty("_ep").EnumerateArray().Select(e => e.GetString()!).ToArray();
        Assert.Equal(expectedPaths, listed);

        foreach (JsonProperty property in original.RootElement.EnumerateObject())
        {
            JsonElement value = document.RootElement.GetProperty(property.Name);
            if (expectedPaths.Contains("/" + property.Name))
            {
                Assert.Equal(JsonValueKind.String, value.ValueKind);
                byte[] blob = Convert.FromBase64String(value.GetString()!);
                Assert.InRange(blob[0], 2, 7);
                Assert.True(blob.Length >= 66, "marker + a cell of at least 65 bytes");
            }
            else
            {
                Assert.True(JsonAssert.AreEquivalent(property.Value, value), property.Name);
            }
        }
    }

    [Theory]
    [MemberData(nameof(Shapes))]
    public void StreamEncrypt_AnyShape_CopiesUntouchedPropertiesByteForByte(string shapeName)
    {
        DocumentShape shape = DocumentShapes.Get(shapeName);
        var processor = new StreamProcessor();

        byte[] encrypted = processor.Encrypt(shape.Utf8, _key, shape.Options());

        var before = TopLevelJson.ReadProperties(shape.Utf8).Where(p => !shape.Paths.Contains("/" + p.Name) || p.ValueType == JsonTokenType.Null).ToList();
        var after = TopLevelJson.ReadProperties(encrypted).Where(p => p.Name != "_ei" && before.Any(b => b.Name == p.Name)).ToList();
        Assert.Equal(before, after);

        // Everything outside the encrypted values, up to the root's closing brace, is the input's own bytes.
        Assert.Equal(shape.Utf8[0], encrypted[0]);
    }

    [Theory]
    [MemberData(nameof(Shapes))]
    public void StreamDecrypt_AnyShape_CopiesUntouchedPropertiesByteForByte(string shapeName)
    {
        DocumentShape shape = DocumentShapes.Get(shapeName);
        var processor = new StreamProcessor();
        byte[] encrypted = processor.Encrypt(shape.Utf8, _key, shape.Options());

        byte[] decrypted = processor.Decrypt(encrypted, _encryptor);

        var untouched = TopLevelJson.ReadProperties(encrypted).Where(p => p.Name != "_ei" && p.ValueType != JsonTokenType.String || !shape.Paths.Contains("/" + p.Name)).Where(p => p.Name != "_ei").ToList();
        var afterDecrypt = TopLevelJson.ReadProperties(decrypted).Where(p => untouched.Any(u => u.Name == p.Name)).ToList();
        Assert.Equal(untouched, afterDecrypt);
    }

    [Fact]
    public void StreamRoundTrip_Fixture_IsByteIdentical()
    {
        DocumentShape shape = DocumentShapes.Get("fixture");
        var processor = new StreamProcessor();

        byte[] decrypted = processor.Decrypt(processor.Encrypt(shape.Utf8, _key, shape.Options()), _encryptor);

        Assert.Equal(shape.Json, decrypted.Utf8());
    }

    [Theory]
    [MemberData(nameof(ProcessorsAndShapes))]
    public void Decrypt_UnencryptedDocument_PassesThroughByteForByte(JsonProcessor kind, string shapeName)
    {
        DocumentShape shape = DocumentShapes.Get(shapeName);

        byte[] output = Processors.Create(kind).Decrypt(shape.Utf8, _encryptor, out DecryptionContext? context);

        Assert.Equal(shape.Utf8, output);
        Assert.Null(context);
        Assert.Equal(0, _encryptor.Lookups);
    }

    [Theory]
    [MemberData(nameof(ProcessorsAndShapes))]
    public void Decrypt_WithContextRequested_ListsThePathsDecryptedAndTheKeyId(JsonProcessor kind, string shapeName)
    {
        DocumentShape shape = DocumentShapes.Get(shapeName);
        EncryptionProcessor processor = Processors.Create(kind);
        byte[] encrypted = processor.Encrypt(shape.Utf8, _key, shape.Options());
        using JsonDocument envelope = JsonDocument.Parse(encrypted);
        string[] listed = envelope.RootElement.GetProperty("_ei").GetProperty("_ep").EnumerateArray().Select(e => e.GetString()!).ToArray();

        processor.Decrypt(encrypted, _encryptor, out DecryptionContext? context);

        Assert.NotNull(context);
        DecryptionInfo info = Assert.Single(context.DecryptionInfoList);
        Assert.Equal(DocumentShapes.KeyId, info.DataEncryptionKeyId);
        Assert.Equal(listed, info.PathsDecrypted);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_WithoutContextRequested_ReturnsNull(JsonProcessor kind)
    {
        DocumentShape shape = DocumentShapes.Get("fixture");
        EncryptionProcessor processor = Processors.Create(kind);
        byte[] encrypted = processor.Encrypt(shape.Utf8, _key, shape.Options());

        DecryptionContext? context = processor.Decrypt(encrypted, new System.Buffers.ArrayBufferWriter<byte>(), _encryptor);

        Assert.Null(context);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_SameDocumentTwice_GivesDifferentCiphertexts(JsonProcessor kind)
    {
        DocumentShape shape = DocumentShapes.Get("fixture");
        EncryptionProcessor processor = Processors.Create(kind);

        byte[] first = processor.Encrypt(shape.Utf8, _key, shape.Options());
        byte[] second = processor.Encrypt(shape.Utf8, _key, shape.Options());

        Assert.NotEqual(TopLevelJson.Get(first, "SensStr").RawValue, TopLevelJson.Get(second, "SensStr").RawValue);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_NoPaths_ReturnsTheDocumentUnchanged(JsonProcessor kind)
    {
        DocumentShape shape = DocumentShapes.Get("fixture");
        var options = new EncryptionOptions { DataEncryptionKeyId = DocumentShapes.KeyId, PathsToEncrypt = [] };

        byte[] output = Processors.Create(kind).Encrypt(shape.Utf8, _key, options);

        Assert.Equal(shape.Utf8, output);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_OptionsListChangedInPlace_EncryptsTheNewPath(JsonProcessor kind)
    {
        DocumentShape shape = DocumentShapes.Get("fixture");
        var paths = new List<string> { "/SensStr" };
        var options = new EncryptionOptions { DataEncryptionKeyId = DocumentShapes.KeyId, PathsToEncrypt = paths };
        EncryptionProcessor processor = Processors.Create(kind);
        processor.Encrypt(shape.Utf8, _key, options);

        paths.Add("/PlainStr");
        byte[] encrypted = processor.Encrypt(shape.Utf8, _key, options);

        Assert.DoesNotContain("passthrough", encrypted.Utf8(), StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_AbsentOrNullListedProperty_IsSkippedAndNotReported(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind);
        byte[] encrypted = processor.Encrypt("{\"id\":\"1\",\"a\":\"x\",\"b\":\"y\"}", _key, new EncryptionOptions { DataEncryptionKeyId = DocumentShapes.KeyId, PathsToEncrypt = ["/a", "/b"] });

        // A later patch removed /a and set /b to null.
        string patched = encrypted.Utf8();
        using (JsonDocument document = JsonDocument.Parse(encrypted))
        {
            string a = document.RootElement.GetProperty("a").GetRawText();
            string b = document.RootElement.GetProperty("b").GetRawText();
            patched = patched.Replace("\"a\":" + a + ",", string.Empty, StringComparison.Ordinal).Replace(b, "null", StringComparison.Ordinal);
        }

        byte[] decrypted = processor.Decrypt(patched.Utf8(), _encryptor, out DecryptionContext? context);

        JsonAssert.Equivalent("{\"id\":\"1\",\"b\":null}", decrypted.Utf8());
        Assert.Empty(Assert.Single(context!.DecryptionInfoList).PathsDecrypted);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_EnvelopeNotLast_RemovesItCleanly(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind);
        byte[] encrypted = processor.Encrypt("{\"id\":\"1\",\"a\":\"x\"}", _key, new EncryptionOptions { DataEncryptionKeyId = DocumentShapes.KeyId, PathsToEncrypt = ["/a"] });
        var properties = TopLevelJson.ReadProperties(encrypted);
        string reordered = "{" + string.Join(",", properties.OrderBy(p => p.Name == "_ei" ? 0 : 1).Select(p => p.RawName + ":" + p.RawValue)) + "}";
        string envelopeOnly = "{" + properties.Single(p => p.Name == "_ei").RawName + ":" + properties.Single(p => p.Name == "_ei").RawValue + "}";

        JsonAssert.Equivalent("{\"id\":\"1\",\"a\":\"x\"}", processor.Decrypt(reordered.Utf8(), _encryptor).Utf8());
        Assert.Equal("{}", processor.Decrypt(envelopeOnly.Utf8(), _encryptor).Utf8());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_EnvelopeNull_PassesThroughUntouched(JsonProcessor kind)
    {
        byte[] document = "{\"id\":\"1\",\"a\":\"x\",\"_ei\":null}".Utf8();

        byte[] output = Processors.Create(kind).Decrypt(document, _encryptor);

        Assert.Equal(document, output);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_DocumentsWithDifferentKeys_UsesTheKeyEachNames(JsonProcessor kind)
    {
        using var other = ReferenceDataEncryptionKey.CreateRandom();
        _encryptor.Add("dek2", other);
        EncryptionProcessor processor = Processors.Create(kind);
        DocumentShape shape = DocumentShapes.Get("fixture");

        byte[] first = processor.Encrypt(shape.Utf8, _key, shape.Options());
        byte[] second = processor.Encrypt(shape.Utf8, other, shape.Options("dek2"));

        JsonAssert.Equivalent(shape.Utf8, processor.Decrypt(first, _encryptor));
        JsonAssert.Equivalent(shape.Utf8, processor.Decrypt(second, _encryptor));
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_DoubleLiterals_EncryptTheCorrectlyRoundedValue(JsonProcessor kind)
    {
        // Utf8JsonReader.TryGetDouble gives 2.9896900000000003E+20 for the first literal (one ulp off).
        foreach (string literal in new[] { "298969000000000000000.0", "0.1", "-0.0", "5e-324", "1.7976931348623157e308", "123456789.123456789e-5" })
        {
            byte[] encrypted = Processors.Create(kind).Encrypt("{\"x\":" + literal + "}", _key, new EncryptionOptions { DataEncryptionKeyId = DocumentShapes.KeyId, PathsToEncrypt = ["/x"] });
            using JsonDocument document = JsonDocument.Parse(encrypted);
            byte[] blob = Convert.FromBase64String(document.RootElement.GetProperty("x").GetString()!);

            double expected = double.Parse(literal, System.Globalization.CultureInfo.InvariantCulture);
            Assert.Equal(3, blob[0]);
            Assert.Equal(BitConverter.GetBytes(expected), _key.DecryptData(blob[1..]));
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_NestedPropertyWithAPathName_IsNotEncrypted(JsonProcessor kind)
    {
        const string Document = "{\"id\":\"1\",\"outer\":{\"ssn\":\"nested\"},\"list\":[{\"ssn\":\"in array\"}]}";

        byte[] encrypted = Processors.Create(kind).Encrypt(Document, _key, new EncryptionOptions { DataEncryptionKeyId = DocumentShapes.KeyId, PathsToEncrypt = ["/ssn"] });

        string text = encrypted.Utf8();
        Assert.Contains("\"nested\"", text, StringComparison.Ordinal);
        Assert.Contains("\"in array\"", text, StringComparison.Ordinal);
        Assert.Contains("\"_ep\":[]", text, StringComparison.Ordinal);
    }
}
