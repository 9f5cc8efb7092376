using System.Buffers;
using System.Text.Json;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary>Query and change-feed pages decrypted document by document, with per-page and per-item failure handling.</summary>
public abstract class FeedPageTests : IDisposable
{
    private readonly DataEncryptionKey _key1;
    private readonly DataEncryptionKey _key2;
    private readonly TestEncryptor _encryptor = new();

    protected FeedPageTests(TestKeyKind keyKind)
    {
        _key1 = TestKeys.Create(keyKind);
        _key2 = TestKeys.Create(keyKind);
        _encryptor.Add("k1", _key1).Add("k2", _key2);
    }

    public void Dispose()
    {
        _key1.Dispose();
        _key2.Dispose();
        GC.SuppressFinalize(this);
    }

    [Theory]
    [MemberData(nameof(Processors.Pairs), MemberType = typeof(Processors))]
    public void DecryptFeedPage_MixedDocuments_DecryptsEachAndPassesTheRestThrough(JsonProcessor encryptWith, JsonProcessor decryptWith)
    {
        (string page, string expected) = BuildPage(Processors.Create(encryptWith), tamper: false, unknownKey: false);

        var output = new ArrayBufferWriter<byte>();
        FeedPageDecryptionResult result = Processors.Create(decryptWith).DecryptFeedPage(page.Utf8(), output, _encryptor);

        JsonAssert.Equivalent(expected, output.WrittenSpan.ToArray().Utf8());
        Assert.Equal(4, result.DocumentCount);
        Assert.Equal(2, result.DecryptedCount);
        Assert.Empty(result.Failures);
        Assert.Null(result.DecryptionContexts);
    }

    [Fact]
    public void StreamDecryptFeedPage_UnencryptedDocumentsAndPageProperties_AreCopiedByteForByte()
    {
        const string Page = "{\"_rid\":\"r1==\" , \"Documents\":[ {\"id\":\"p\",\"v\":\"\\u0053\"} ,7, [1, 2] ,{ }],\"_count\":4 }";

        var output = new ArrayBufferWriter<byte>();
        FeedPageDecryptionResult result = new StreamProcessor().DecryptFeedPage(Page.Utf8(), output, _encryptor);

        Assert.Equal(Page, output.WrittenSpan.ToArray().Utf8());
        Assert.Equal(4, result.DocumentCount);
        Assert.Equal(0, result.DecryptedCount);
        Assert.Equal(0, _encryptor.Lookups);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void DecryptFeedPage_FailingDocument_FailsThePageNamingTheDocument(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind);
        (string page, _) = BuildPage(processor, tamper: true, unknownKey: false);

        EncryptionException exception = Assert.Throws<EncryptionException>(() => processor.DecryptFeedPage(page.Utf8(), new ArrayBufferWriter<byte>(), _encryptor));

        Assert.Equal(EncryptionErrorKind.InvalidCipherText, exception.Kind);
        Assert.Contains("'tampered'", exception.Message, StringComparison.Ordinal);
        Assert.Contains("index 4", exception.Message, StringComparison.Ordinal);
        Assert.Equal("/s", exception.Path);
        Assert.Equal("k1", exception.DataEncryptionKeyId);
        Assert.DoesNotContain("secret", exception.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors.Pairs), MemberType = typeof(Processors))]
    public void DecryptFeedPage_ReportPerItem_LeavesFailedDocumentsAsTheyWereAndReportsThem(JsonProcessor encryptWith, JsonProcessor decryptWith)
    {
        (string page, string expected) = BuildPage(Processors.Create(encryptWith), tamper: true, unknownKey: true);
        var options = new FeedPageDecryptionOptions { FailureMode = FeedItemFailureMode.ReportPerItem, IncludeDecryptionContexts = true };

        var output = new ArrayBufferWriter<byte>();
        FeedPageDecryptionResult result = Processors.Create(decryptWith).DecryptFeedPage(page.Utf8(), output, _encryptor, options);

        Assert.Equal(7, result.DocumentCount);
        Assert.Equal(2, result.DecryptedCount);
        Assert.Collection(
            result.Failures,
            failure =>
            {
                Assert.Equal(4, failure.Index);
                Assert.Equal("tampered", failure.Id);
                Assert.Equal(EncryptionErrorKind.InvalidCipherText, failure.Exception.Kind);
            },
            failure =>
            {
                Assert.Equal(5, failure.Index);
                Assert.Equal("orphan", failure.Id);
                Assert.Equal(EncryptionErrorKind.KeyUnavailable, failure.Exception.Kind);
            },
            failure =>
            {
                Assert.Equal(6, failure.Index);
                Assert.Null(failure.Id);
                Assert.Equal(EncryptionErrorKind.UnsupportedFormat, failure.Exception.Kind);
            });

        using JsonDocument input = JsonDocument.Parse(page);
        using JsonDocument decrypted = JsonDocument.Parse(output.WrittenSpan.ToArray());
        using JsonDocument expectedDocument = JsonDocument.Parse(expected);
        JsonElement[] inputDocuments = input.RootElement.GetProperty("Documents").EnumerateArray().ToArray();
        JsonElement[] outputDocuments = decrypted.RootElement.GetProperty("Documents").EnumerateArray().ToArray();
        JsonElement[] expectedDocuments = expectedDocument.RootElement.GetProperty("Documents").EnumerateArray().ToArray();
        for (int i = 0; i < 4; i++)
        {
            Assert.True(JsonAssert.AreEquivalent(expectedDocuments[i], outputDocuments[i]), $"document {i}");
        }

        for (int i = 4; i < 7; i++)
        {
            Assert.True(JsonAssert.AreEquivalent(inputDocuments[i], outputDocuments[i]), $"failed document {i} is unchanged");
            if (decryptWith == JsonProcessor.Stream)
            {
                Assert.Equal(inputDocuments[i].GetRawText(), outputDocuments[i].GetRawText());
            }
        }

        IReadOnlyList<DecryptionContext?> contexts = result.DecryptionContexts!;
        Assert.Equal(7, contexts.Count);
        Assert.Equal("k1", contexts[0]!.DecryptionInfoList[0].DataEncryptionKeyId);
        Assert.Equal(["/s", "/n"], contexts[0]!.DecryptionInfoList[0].PathsDecrypted);
        Assert.Null(contexts[1]);
        Assert.Null(contexts[2]);
        Assert.Equal("k2", contexts[3]!.DecryptionInfoList[0].DataEncryptionKeyId);
        Assert.Null(contexts[4]);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task DecryptFeedPageAsync_FailingDocument_WritesNothing(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind);
        (string page, _) = BuildPage(processor, tamper: true, unknownKey: false);
        var output = new MemoryStream();

        await Assert.ThrowsAsync<EncryptionException>(async () =>
            await processor.DecryptFeedPageAsync(new MemoryStream(page.Utf8()), output, _encryptor, cancellationToken: TestContext.Current.CancellationToken));

        Assert.Equal(0, output.Length);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task DecryptFeedPageAsync_TrickledWithAsynchronousKeys_MatchesTheSynchronousResult(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind);
        (string page, string expected) = BuildPage(processor, tamper: true, unknownKey: true);
        var options = new FeedPageDecryptionOptions { FailureMode = FeedItemFailureMode.ReportPerItem };
        _encryptor.Asynchronous = true;

        var output = new MemoryStream();
        FeedPageDecryptionResult result = await processor.DecryptFeedPageAsync(new TricklingStream(page.Utf8(), 7), output, _encryptor, options, TestContext.Current.CancellationToken);
        var synchronous = new ArrayBufferWriter<byte>();
        processor.DecryptFeedPage(page.Utf8(), synchronous, _encryptor, options);

        Assert.Equal(synchronous.WrittenSpan.ToArray(), output.ToArray());
        Assert.Equal(2, result.DecryptedCount);
        Assert.Equal([4, 5, 6], result.Failures.Select(f => f.Index));
        Assert.NotEmpty(expected);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void DecryptFeedPage_PageWithoutDocuments_PassesThrough(JsonProcessor kind)
    {
        const string Page = "{\"_rid\":\"r\",\"_count\":0}";
        var output = new ArrayBufferWriter<byte>();

        FeedPageDecryptionResult result = Processors.Create(kind).DecryptFeedPage(Page.Utf8(), output, _encryptor);

        JsonAssert.Equivalent(Page, output.WrittenSpan.ToArray().Utf8());
        Assert.Equal(0, result.DocumentCount);
        Assert.Empty(result.Failures);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void DecryptFeedPage_MalformedOrNonObjectPage_FailsAsMalformed(JsonProcessor kind)
    {
        foreach (string page in new[] { "[{}]", "{\"Documents\":[{\"id\":1}", "{\"Documents\":[{\"id\":1},]}x" })
        {
            EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).DecryptFeedPage(page.Utf8(), new ArrayBufferWriter<byte>(), _encryptor));

            Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void DecryptFeedPage_DepthLimit_CountsFromEachDocument(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind, new EncryptionProcessorOptions { MaxDepth = 3 });

        // Each document: root (1) → a (2) → inner (3) is allowed inside a page as it is alone.
        FeedPageDecryptionResult allowed = processor.DecryptFeedPage("{\"Documents\":[{\"a\":[[1]]}]}"u8, new ArrayBufferWriter<byte>(), _encryptor);
        EncryptionException tooDeep = Assert.Throws<EncryptionException>(() => processor.DecryptFeedPage("{\"Documents\":[{\"a\":[[[1]]]}]}"u8, new ArrayBufferWriter<byte>(), _encryptor));

        Assert.Equal(1, allowed.DocumentCount);
        Assert.Equal(EncryptionErrorKind.LimitExceeded, tooDeep.Kind);
    }

    // Documents: 0 encrypted (k1), 1 plain, 2 non-object, 3 encrypted (k2), then optionally 4 tampered (k1),
    // 5 with an unknown key, 6 with an unsupported format.
    private (string Page, string Expected) BuildPage(EncryptionProcessor processor, bool tamper, bool unknownKey)
    {
        var options1 = new EncryptionOptions { DataEncryptionKeyId = "k1", PathsToEncrypt = ["/s", "/n"] };
        var options2 = new EncryptionOptions { DataEncryptionKeyId = "k2", PathsToEncrypt = ["/o"] };
        string doc0 = "{\"id\":\"d0\",\"s\":\"secret zero\",\"n\":1.5,\"keep\":[1,\"x\"]}";
        string doc1 = "{\"id\":\"d1\",\"s\":\"plain\"}";
        string doc3 = "{\"id\":\"d3\",\"o\":{\"deep\":[true,null]},\"tail\":\"t\"}";
        string doc4 = "{\"id\":\"tampered\",\"s\":\"secret four\"}";
        string doc5 = "{\"id\":\"orphan\",\"s\":\"secret five\"}";

        string enc0 = processor.Encrypt(doc0, _key1, options1).Utf8();
        string enc3 = processor.Encrypt(doc3, _key2, options2).Utf8();
        var documents = new List<string> { enc0, doc1, "42", enc3 };
        var expected = new List<string> { doc0, doc1, "42", doc3 };
        if (tamper)
        {
            string enc4 = processor.Encrypt(doc4, _key1, options1).Utf8();
            using JsonDocument parsed = JsonDocument.Parse(enc4);
            string value = parsed.RootElement.GetProperty("s").GetString()!;
            byte[] blob = Convert.FromBase64String(value);
            blob[^1] ^= 1;
            documents.Add(enc4.Replace(value, Convert.ToBase64String(blob), StringComparison.Ordinal));
            expected.Add(doc4);
        }

        if (unknownKey)
        {
            using var orphanKey = ReferenceDataEncryptionKey.CreateRandom();
            documents.Add(processor.Encrypt(doc5, orphanKey, new EncryptionOptions { DataEncryptionKeyId = "unknown", PathsToEncrypt = ["/s"] }).Utf8());
            expected.Add(doc5);
            documents.Add("{\"s\":\"x\",\"_ei\":{\"_ef\":9,\"_en\":\"k1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[\"/s\"]}}");
            expected.Add(documents[^1]);
        }

        string Wrap(IEnumerable<string> items) => "{\"_rid\":\"abc==\",\"Documents\":[" + string.Join(",", items) + "],\"_count\":" + documents.Count + "}";
        return (Wrap(documents), Wrap(expected));
    }
}
