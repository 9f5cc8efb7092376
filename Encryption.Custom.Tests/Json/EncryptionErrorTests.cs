using System.Buffers;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary>Bad documents, bad options and limits on encryption: a clear error of the right kind, over both processors.</summary>
public sealed class EncryptionErrorTests : IDisposable
{
    private readonly ReferenceDataEncryptionKey _key = ReferenceDataEncryptionKey.CreateRandom();

    public static MatrixTheoryData<JsonProcessor, string> MalformedDocuments => new(
        [JsonProcessor.Stream, JsonProcessor.Newtonsoft],
        [
            string.Empty,
            "   ",
            "{",
            "{\"id\":\"1\",\"a\":",
            "{\"id\":\"1\",\"a\":\"unterminated",
            "{\"id\":\"1\",\"a\":[1,2}",
            "{\"id\":\"1\" \"a\":1}",
            "{\"id\":\"1\",\"a\":tru}",
            "{\"id\":\"1\",\"a\":1}}",
            "{\"id\":\"1\",\"a\":1} {}",
            "{\"id\":\"1\",\"a\":1} x",
            "[1,2]",
            "\"text\"",
            "42",
            "null",
        ]);

    public static MatrixTheoryData<JsonProcessor, string> InvalidPaths => new(
        [JsonProcessor.Stream, JsonProcessor.Newtonsoft],
        ["/id", "a", "/a/0", "/a/[]x", string.Empty, "/", "/_ei", "/_ex", "//a"]);

    public void Dispose() => _key.Dispose();

    [Theory]
    [MemberData(nameof(MalformedDocuments))]
    public void Encrypt_MalformedOrNonObjectDocument_FailsAsMalformed(JsonProcessor kind, string document)
    {
        EncryptionException exception = AssertEncryptFails(kind, document, ["/a"]);

        Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_DocumentWithTopLevelEnvelope_FailsAsMalformed(JsonProcessor kind)
    {
        EncryptionException exception = AssertEncryptFails(kind, "{\"id\":\"1\",\"a\":\"x\",\"_ei\":{\"_ef\":3}}", ["/a"]);

        Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
        Assert.Contains("_ei", exception.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_EscapedEnvelopeName_IsStillRecognized(JsonProcessor kind)
    {
        EncryptionException exception = AssertEncryptFails(kind, "{\"id\":\"1\",\"a\":\"x\",\"\\u005fei\":null}", ["/a"]);

        Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
    }

    [Theory]
    [MemberData(nameof(InvalidPaths))]
    public void Encrypt_InvalidPath_FailsAsInvalidOptionsNamingThePath(JsonProcessor kind, string path)
    {
        EncryptionException exception = AssertEncryptFails(kind, "{\"id\":\"1\",\"a\":\"x\"}", [path]);

        Assert.Equal(EncryptionErrorKind.InvalidOptions, exception.Kind);
        Assert.Equal(path, exception.Path);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_RepeatedPath_FailsAsInvalidOptions(JsonProcessor kind)
    {
        EncryptionException exception = AssertEncryptFails(kind, "{\"id\":\"1\",\"a\":\"x\"}", ["/a", "/b", "/a"]);

        Assert.Equal(EncryptionErrorKind.InvalidOptions, exception.Kind);
        Assert.Equal("/a", exception.Path);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_NullPathsOrNullPath_FailsAsInvalidOptions(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind);
        var nullList = new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = null };
        var nullEntry = new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = [null!] };

        Assert.Equal(EncryptionErrorKind.InvalidOptions, Assert.Throws<EncryptionException>(() => processor.Encrypt("{}", _key, nullList)).Kind);
        Assert.Equal(EncryptionErrorKind.InvalidOptions, Assert.Throws<EncryptionException>(() => processor.Encrypt("{}", _key, nullEntry)).Kind);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_EmptyKeyIdOrAlgorithm_FailsAsInvalidOptions(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind);
        string[] paths = ["/a"];

        foreach (EncryptionOptions options in new[]
        {
            new EncryptionOptions { DataEncryptionKeyId = null, PathsToEncrypt = paths },
            new EncryptionOptions { DataEncryptionKeyId = string.Empty, PathsToEncrypt = paths },
            new EncryptionOptions { DataEncryptionKeyId = " \t", PathsToEncrypt = paths },
            new EncryptionOptions { DataEncryptionKeyId = "k\ud800", PathsToEncrypt = paths },
            new EncryptionOptions { DataEncryptionKeyId = "k", EncryptionAlgorithm = string.Empty, PathsToEncrypt = paths },
            new EncryptionOptions { DataEncryptionKeyId = "k", EncryptionAlgorithm = "Rot13", PathsToEncrypt = paths },
            new EncryptionOptions { DataEncryptionKeyId = "k", EncryptionAlgorithm = CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized, PathsToEncrypt = paths },
        })
        {
            EncryptionException exception = Assert.Throws<EncryptionException>(() => processor.Encrypt("{\"a\":1}", _key, options));
            Assert.Equal(EncryptionErrorKind.InvalidOptions, exception.Kind);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_KeyForAnotherAlgorithm_FailsAsKeyUnavailable(JsonProcessor kind)
    {
        using var legacy = ReferenceDataEncryptionKey.CreateRandom(CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized);
        var options = new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a"] };

        EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Encrypt("{\"a\":1}", legacy, options));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, exception.Kind);
        Assert.Equal("k", exception.DataEncryptionKeyId);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_IntegerBeyondInt64_FailsNamingThePathNotTheValue(JsonProcessor kind)
    {
        foreach (string number in new[] { "9223372036854775808", "-9223372036854775809", "123456789012345678901234567890" })
        {
            EncryptionException exception = AssertEncryptFails(kind, "{\"id\":\"1\",\"big\":" + number + "}", ["/big"]);

            Assert.Equal(EncryptionErrorKind.LimitExceeded, exception.Kind);
            Assert.Equal("/big", exception.Path);
            Assert.DoesNotContain(number.TrimStart('-')[..10], exception.Message, StringComparison.Ordinal);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_IntegerBeyondInt64NotEncrypted_PassesThrough(JsonProcessor kind)
    {
        byte[] encrypted = Processors.Create(kind).Encrypt("{\"id\":\"1\",\"big\":123456789012345678901234567890,\"a\":1}", _key, new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a"] });

        Assert.Contains("123456789012345678901234567890", encrypted.Utf8(), StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_NumberOverflowingDouble_FailsAsLimitExceeded(JsonProcessor kind)
    {
        EncryptionException exception = AssertEncryptFails(kind, "{\"id\":\"1\",\"x\":1e400}", ["/x"]);

        Assert.Equal(EncryptionErrorKind.LimitExceeded, exception.Kind);
        Assert.Equal("/x", exception.Path);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_RepeatedEncryptedProperty_FailsAsMalformed(JsonProcessor kind)
    {
        EncryptionException exception = AssertEncryptFails(kind, "{\"id\":\"1\",\"a\":\"x\",\"a\":\"y\"}", ["/a"]);

        Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
    }

    [Fact]
    public void StreamEncrypt_LoneSurrogateInEncryptedString_FailsAsMalformed()
    {
        EncryptionException exception = AssertEncryptFails(JsonProcessor.Stream, "{\"id\":\"1\",\"a\":\"x\\ud800y\"}", ["/a"]);

        Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
    }

    [Fact]
    public void NewtonsoftEncrypt_LoneSurrogateInEncryptedString_IsReplacedByTheReader()
    {
        // Newtonsoft.Json (like Microsoft's package, which uses it) turns the lone surrogate into U+FFFD while
        // parsing; the stream processor refuses to alter data and rejects it instead.
        var encryptor = new TestEncryptor().Add("k", _key);
        var processor = new NewtonsoftProcessor();
        byte[] encrypted = processor.Encrypt("{\"id\":\"1\",\"a\":\"x\\ud800y\"}", _key, new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a"] });

        Assert.Equal("{\"id\":\"1\",\"a\":\"x\uFFFDy\"}", processor.Decrypt(encrypted, encryptor).Utf8());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_DocumentOverMaxLength_FailsAsLimitExceeded(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind, new EncryptionProcessorOptions { MaxDocumentLength = 20 });
        var options = new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a"] };

        EncryptionException exception = Assert.Throws<EncryptionException>(() => processor.Encrypt("{\"id\":\"1\",\"a\":\"0123456789\"}", _key, options));

        // An input at the limit is read, but its output would be over it (see StrictInputTests for outputs that fit).
        EncryptionException atLimit = Assert.Throws<EncryptionException>(() => processor.Encrypt("{\"a\":\"0123456789ab\"}", _key, options));

        Assert.Equal(EncryptionErrorKind.LimitExceeded, exception.Kind);
        Assert.DoesNotContain("encrypted document", exception.Message, StringComparison.Ordinal);
        Assert.Equal(EncryptionErrorKind.LimitExceeded, atLimit.Kind);
        Assert.Contains("encrypted document would be larger", atLimit.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_DocumentAtMaxDepth_Succeeds_OneDeeper_FailsAsLimitExceeded(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind, new EncryptionProcessorOptions { MaxDepth = 5 });
        var options = new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a"] };

        // Root = level 1; "a" holds levels 2..5, then 2..6.
        byte[] atLimit = processor.Encrypt("{\"a\":[[[[1]]]],\"b\":[[[[2]]]]}", _key, options);
        EncryptionException inEncrypted = Assert.Throws<EncryptionException>(() => processor.Encrypt("{\"a\":[[[[[1]]]]]}", _key, options));
        EncryptionException inPlain = Assert.Throws<EncryptionException>(() => processor.Encrypt("{\"a\":1,\"b\":{\"c\":[[[{}]]]}}", _key, options));

        Assert.NotEmpty(atLimit);
        Assert.Equal(EncryptionErrorKind.LimitExceeded, inEncrypted.Kind);
        Assert.Equal(EncryptionErrorKind.LimitExceeded, inPlain.Kind);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_NullArguments_ThrowArgumentNull(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind);
        var options = new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a"] };
        var output = new ArrayBufferWriter<byte>();

        Assert.Throws<ArgumentNullException>(() => processor.Encrypt("{}"u8, null!, _key, options));
        Assert.Throws<ArgumentNullException>(() => processor.Encrypt("{}"u8, output, null!, options));
        Assert.Throws<ArgumentNullException>(() => processor.Encrypt("{}"u8, output, _key, null!));
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_Failure_NeverLeavesACompleteLookingDocument(JsonProcessor kind)
    {
        // The failing value comes after a successfully encrypted one.
        var output = new ArrayBufferWriter<byte>();
        var options = new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a", "/big"] };

        Assert.Throws<EncryptionException>(() => Processors.Create(kind).Encrypt("{\"a\":\"secret\",\"big\":99999999999999999999}"u8, output, _key, options));

        string written = output.WrittenSpan.ToArray().Utf8();
        Assert.False(written.EndsWith('}'), written);
        Assert.DoesNotContain("_ei", written, StringComparison.Ordinal);
    }

    private EncryptionException AssertEncryptFails(JsonProcessor kind, string document, string[] paths)
    {
        var options = new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = paths };
        return Assert.Throws<EncryptionException>(() => Processors.Create(kind).Encrypt(document, _key, options));
    }
}
