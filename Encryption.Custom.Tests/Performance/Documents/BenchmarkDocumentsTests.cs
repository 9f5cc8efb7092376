using System.Buffers;
using System.Text.Json;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;
using Encryption.Custom.Performance.Tests.Documents;
using Encryption.Custom.Performance.Tests.Infrastructure;

namespace Encryption.Custom.Tests.Performance.Documents;

/// <summary>The benchmark document generator: exact sizes, valid JSON, deterministic, and the shapes performance.md describes.</summary>
public sealed class BenchmarkDocumentsTests
{
    public static MatrixTheoryData<DocumentShape, int> ShapesAndSizes => new(
        [DocumentShape.Published, DocumentShape.Mixed, DocumentShape.Lookup],
        [BenchmarkDocuments.MinimumSize, 1000, 1024, 4096, 8192, 65536, 1024 * 1024]);

    [Theory]
    [InlineData(BenchmarkDocuments.MinimumSize)]
    [InlineData(1024)]
    [InlineData(8192)]
    [InlineData(65536)]
    public void Create_Nested_IsExactlyThatLong_AndItsSelectorsPickValuesAtEverySizeFromOneKilobyte(int size)
    {
        BenchmarkDocument document = BenchmarkDocuments.Create(DocumentShape.Nested, size);

        Assert.Equal(size, document.Utf8.Length);
        using JsonDocument parsed = JsonDocument.Parse(document.Utf8);
        Assert.Equal(["/customer/address/city", "/orders/[]/card/number", "/orders/[]/lines/[]/note"], document.Paths);
        Assert.Equal(JsonValueKind.String, parsed.RootElement.GetProperty("customer").GetProperty("address").GetProperty("city").ValueKind);
        if (size >= 1024)
        {
            JsonElement order = parsed.RootElement.GetProperty("orders")[0];
            Assert.Equal(JsonValueKind.String, order.GetProperty("card").GetProperty("number").ValueKind);
            Assert.Equal(JsonValueKind.String, order.GetProperty("lines")[0].GetProperty("note").ValueKind);
        }
    }

    [Fact]
    public void Create_Tokens_WritesTokensForItsDeclaredPaths_AndItsPolicyIsAccepted()
    {
        BenchmarkDocument document = BenchmarkDocuments.Create(DocumentShape.Tokens, 8192);
        Assert.Equal(8192, document.Utf8.Length);
        Assert.Contains(document.Paths, path => path.StartsWith("/createdAt", StringComparison.Ordinal));

        using var key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        var output = new ArrayBufferWriter<byte>();
        document.CreateProcessor(JsonProcessor.Stream).Encrypt(document.Utf8, output, key, document.CreateOptions());
        using JsonDocument stored = JsonDocument.Parse(output.WrittenMemory);
        Assert.Contains("qt", stored.RootElement.GetProperty("_ei").GetProperty("_ev").GetProperty("crit").EnumerateArray().Select(e => e.GetString()));
        JsonElement tokens = stored.RootElement.GetProperty("_q");
        Assert.True(tokens.TryGetProperty("/sku0", out _));
        Assert.True(tokens.TryGetProperty("/ssn0", out _) || tokens.TryGetProperty("/ssn1", out _));
        Assert.True(tokens.TryGetProperty("/price0", out _));
    }

    [Theory]
    [InlineData(DocumentShape.Bound, "[\"bind\"]")]
    [InlineData(DocumentShape.Committed, "[\"bind\",\"commit\"]")]
    public void Create_BoundAndCommitted_AreTheMixedDocumentWrittenInFormat101WithTheirFeatures(DocumentShape shape, string crit)
    {
        BenchmarkDocument document = BenchmarkDocuments.Create(shape, 8192);
        BenchmarkDocument mixed = BenchmarkDocuments.Create(DocumentShape.Mixed, 8192);
        Assert.Equal(mixed.Paths, document.Paths);
        Assert.Equal(8192, document.Utf8.Length);

        using var key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        var output = new ArrayBufferWriter<byte>();
        document.CreateProcessor(JsonProcessor.Stream).Encrypt(document.Utf8, output, key, document.CreateOptions());
        using JsonDocument stored = JsonDocument.Parse(output.WrittenMemory);
        JsonElement envelope = stored.RootElement.GetProperty("_ei");
        Assert.Equal(101, envelope.GetProperty("_ef").GetInt32());
        Assert.Equal(crit, envelope.GetProperty("_ev").GetProperty("crit").GetRawText());
    }

    [Theory]
    [MemberData(nameof(ShapesAndSizes))]
    public void Create_AnyShapeAndSize_IsExactlyThatLongAndEveryPathIsATopLevelValue(DocumentShape shape, int size)
    {
        BenchmarkDocument document = BenchmarkDocuments.Create(shape, size);

        Assert.Equal(size, document.Utf8.Length);
        Assert.All(document.Utf8, b => Assert.InRange(b, (byte)0x20, (byte)0x7E));
        using JsonDocument parsed = JsonDocument.Parse(document.Utf8);
        var names = parsed.RootElement.EnumerateObject().Select(p => p.Name).ToList();
        Assert.Equal(names.Count, names.Distinct(StringComparer.Ordinal).Count());
        Assert.NotEmpty(document.Paths);
        Assert.All(document.Paths, path =>
        {
            Assert.True(parsed.RootElement.TryGetProperty(path[1..], out JsonElement value), path);
            Assert.NotEqual(JsonValueKind.Null, value.ValueKind);
        });
    }

    [Fact]
    public void Create_SameSeed_GivesTheSameBytes_AnotherSeedDoesNot()
    {
        byte[] first = BenchmarkDocuments.Create(DocumentShape.Mixed, 8192).Utf8;
        byte[] second = BenchmarkDocuments.Create(DocumentShape.Mixed, 8192).Utf8;
        byte[] other = BenchmarkDocuments.Create(DocumentShape.Mixed, 8192, BenchmarkDocuments.DefaultSeed + 1).Utf8;

        Assert.Equal(first, second);
        Assert.NotEqual(first, other);
    }

    [Theory]
    [InlineData(8192)]
    [InlineData(65536)]
    [InlineData(1024 * 1024)]
    public void Create_Mixed_HasAboutHalfItsBytesInLargeEncryptedStringsAndEncryptsEveryKindOfValue(int size)
    {
        BenchmarkDocument document = BenchmarkDocuments.Create(DocumentShape.Mixed, size);
        using JsonDocument parsed = JsonDocument.Parse(document.Utf8);
        JsonElement root = parsed.RootElement;
        var encrypted = document.Paths.Select(path => root.GetProperty(path[1..])).ToList();

        long largeStringBytes = encrypted.Where(v => v.ValueKind == JsonValueKind.String).Select(v => v.GetRawText().Length).Where(n => n >= 300).Sum();
        Assert.InRange(largeStringBytes / (double)size, 0.40, 0.60);
        Assert.InRange(encrypted.Count / (size / 8192.0), 12, 16);
        Assert.Contains(encrypted, v => v.ValueKind == JsonValueKind.Number);
        Assert.Contains(encrypted, v => v.ValueKind is JsonValueKind.True or JsonValueKind.False);
        Assert.Contains(encrypted, v => v.ValueKind == JsonValueKind.Object);
        Assert.True(root.EnumerateObject().Count() > 3 * document.Paths.Count, "many small properties stay plain");
        Assert.Contains(root.EnumerateObject(), p => p.Value.ValueKind == JsonValueKind.Array);
    }

    [Theory]
    [InlineData(1024)]
    [InlineData(8192)]
    public void Create_Lookup_EncryptsScalarLookupKeysDeterministically_EqualValuesGiveEqualCiphertexts(int size)
    {
        using DataEncryptionKey key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        BenchmarkDocument document = BenchmarkDocuments.Create(DocumentShape.Lookup, size);
        using JsonDocument parsed = JsonDocument.Parse(document.Utf8);
        var processor = new StreamProcessor();
        var first = new ArrayBufferWriter<byte>();
        var second = new ArrayBufferWriter<byte>();

        processor.Encrypt(document.Utf8, first, key, document.CreateOptions());
        processor.Encrypt(document.Utf8, second, key, document.CreateOptions());

        Assert.NotEmpty(document.DeterministicPaths);
        Assert.All(document.DeterministicPaths, path =>
        {
            Assert.Contains(path, document.Paths);
            Assert.True(parsed.RootElement.GetProperty(path[1..]).ValueKind is JsonValueKind.String or JsonValueKind.Number or JsonValueKind.True or JsonValueKind.False, path);
        });
        using JsonDocument once = JsonDocument.Parse(first.WrittenMemory);
        using JsonDocument twice = JsonDocument.Parse(second.WrittenMemory);
        Assert.All(document.Paths, path => Assert.Equal(
            document.DeterministicPaths.Contains(path),
            once.RootElement.GetProperty(path[1..]).GetString() == twice.RootElement.GetProperty(path[1..]).GetString()));
    }

    [Theory]
    [InlineData(1024)]
    [InlineData(65536)]
    public void Create_Published_HasOneStringOneNumberAndOneObjectThatCarriesMostBytes(int size)
    {
        BenchmarkDocument document = BenchmarkDocuments.Create(DocumentShape.Published, size);
        using JsonDocument parsed = JsonDocument.Parse(document.Utf8);
        JsonElement root = parsed.RootElement;

        Assert.Equal(["/SensitiveStr", "/SensitiveInt", "/SensitiveDict"], document.Paths);
        Assert.Equal(JsonValueKind.String, root.GetProperty("SensitiveStr").ValueKind);
        Assert.Equal(JsonValueKind.Number, root.GetProperty("SensitiveInt").ValueKind);
        Assert.Equal(JsonValueKind.Object, root.GetProperty("SensitiveDict").ValueKind);
        Assert.True(root.GetProperty("SensitiveDict").GetRawText().Length > size * 0.75);
    }

    [Theory]
    [MemberData(nameof(ShapesAndSizes))]
    public void Create_AnyShapeAndSize_StreamProcessorRoundTripsItByteForByte(DocumentShape shape, int size)
    {
        using DataEncryptionKey key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        var encryptor = new BenchmarkEncryptor(BenchmarkDocument.KeyId, key);
        BenchmarkDocument document = BenchmarkDocuments.Create(shape, size);
        var processor = new StreamProcessor();
        var encrypted = new ArrayBufferWriter<byte>();
        var decrypted = new ArrayBufferWriter<byte>();

        processor.Encrypt(document.Utf8, encrypted, key, document.CreateOptions());
        processor.Decrypt(encrypted.WrittenSpan, decrypted, encryptor);

        Assert.Equal(document.Utf8, decrypted.WrittenSpan.ToArray());
    }

    [Fact]
    public void DocumentCryptoWorkload_Record_HoldsOneValuePerEncryptedPathAndItsCellsDecrypt()
    {
        using DataEncryptionKey key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        var encryptor = new BenchmarkEncryptor(BenchmarkDocument.KeyId, key);
        BenchmarkDocument document = BenchmarkDocuments.Create(DocumentShape.Mixed, 8192);

        DocumentCryptoWorkload workload = DocumentCryptoWorkload.Record(document, key);

        Assert.Equal(document.Paths.Count, workload.ValueCount);
        Assert.InRange(workload.PlainTextBytes, document.Size / 3, document.Size);
        Assert.True(workload.DecryptAll() == workload.PlainTextBytes, "every cell decrypts to its recorded plaintext length");
        Assert.True(workload.EncryptAll() > workload.PlainTextBytes);
        var decrypted = new ArrayBufferWriter<byte>();
        new StreamProcessor().Decrypt(workload.EncryptedDocument, decrypted, encryptor);
        TestSupport.JsonAssert.Equivalent(document.Utf8, decrypted.WrittenSpan);
    }
}
