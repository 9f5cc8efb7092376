using System.Buffers;
using System.Text.Json;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary>
/// Differential tests: inputs where both processors must agree on refusing (one canonical form per ciphertext, the
/// format resolved before the rest of <c>_ei</c>, no duplicates that one processor would resolve differently from
/// the other, nothing that is not JSON) and on the size of what encryption may produce.
/// </summary>
public sealed class StrictInputTests : IDisposable
{
    private const string KeyId = "dek1";
    private const string Envelope = "\"_ei\":{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ed\":null,\"_ep\":[\"/a\"]}";

    private readonly ReferenceDataEncryptionKey _key = ReferenceDataEncryptionKey.CreateRandom();
    private readonly TestEncryptor _encryptor = new();

    public StrictInputTests() => _encryptor.Add(KeyId, _key);

    public static MatrixTheoryData<JsonProcessor, string> NotJson => new(
        [JsonProcessor.Stream, JsonProcessor.Newtonsoft],
        [
            "{\"id\":\"1\",\"a\":\"x\",\"b\":NaN}",
            "{\"id\":\"1\",\"a\":\"x\",\"b\":Infinity}",
            "{\"id\":\"1\",\"a\":\"x\",\"b\":-Infinity}",
            "{\"id\":\"1\",\"a\":\"x\",\"b\":new Date(1)}",
            "{\"id\":\"1\",\"a\":\"x\",\"b\":undefined}",
            "{\"id\":\"1\",\"a\":\"x\",\"b\":0x1F}",
            "{\"id\":\"1\",\"a\":\"x\",\"b\":'single'}",
            "{\"id\":\"1\",\"a\":\"x\",b:1}",
            "{\"id\":\"1\",\"a\":\"x\",\"b\":1,}",
            "{\"id\":\"1\",\"a\":\"x\",\"b\":[1,]}",
            "{\"id\":\"1\",\"a\":\"x\",\"b\":{\"c\":1,}}",
            "{\"id\":\"1\",\"a\":\"x\",\"b\":1 /* comment */}",
            "{\"id\":\"1\",\"a\":\"x\",\"b\":1} // comment",
            "/* comment */ {\"id\":\"1\",\"a\":\"x\"}",
            "{\"id\":\"1\",\"a\":\"x\",\"b\":+1}",
            "{\"id\":\"1\",\"a\":\"x\",\"b\":01}",
            "{\"id\":\"1\",\"a\":\"x\",\"b\":.5}",
            "{\"id\":\"1\",\"a\":\"x\",\"b\":\"tab\there\"}",
        ]);

    public static MatrixTheoryData<JsonProcessor, string> NumbersBeyondDouble => new(
        [JsonProcessor.Stream, JsonProcessor.Newtonsoft],
        ["1e400", "-1e400", "1.5e309", "1" + new string('0', 400) + ".0"]);

    public static MatrixTheoryData<JsonProcessor, string> NonCanonicalBase64 => new(
        [JsonProcessor.Stream, JsonProcessor.Newtonsoft],
        ["raw-spaces", "escaped-newlines", "escaped-tabs", "escaped-crlf", "nonzero-padding-bits"]);

    public static MatrixTheoryData<JsonProcessor, string> DuplicateEnvelopeMembers => new(
        [JsonProcessor.Stream, JsonProcessor.Newtonsoft],
        [
            "{\"_ef\":3,\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[\"/a\"]}",
            "{\"_ef\":3,\"_en\":\"other\",\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[\"/a\"]}",
            "{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"Rot13\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[\"/a\"]}",
            "{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ed\":null,\"_ed\":null,\"_ep\":[\"/a\"]}",
            "{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[],\"_ep\":[\"/a\"]}",
            "{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[\"/a\"],\"_ep\":[\"/b\"]}",
        ]);

    public static MatrixTheoryData<JsonProcessor, string> FutureFormats => new(
        [JsonProcessor.Stream, JsonProcessor.Newtonsoft],
        [
            "{\"_ef\":4}",
            "{\"_ef\":4,\"_ep\":{\"a\":\"newShape\"}}",
            "{\"_ep\":\"newShape\",\"_ef\":4,\"_en\":5}",
            "{\"_en\":[\"k1\",\"k2\"],\"_ea\":{\"name\":\"x\"},\"_ef\":4,\"_ep\":[\"/a/b\"]}",
            "{\"_ef\":99,\"_en\":\"\",\"_ep\":[\"/a\",\"/a\"]}",
        ]);

    public void Dispose() => _key.Dispose();

    [Theory]
    [MemberData(nameof(NotJson))]
    public void Encrypt_NotJson_FailsAsMalformed(JsonProcessor kind, string document)
    {
        var output = new ArrayBufferWriter<byte>();

        EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Encrypt(document.Utf8(), output, _key, Options("/a")));

        Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
        Assert.False(output.WrittenSpan.ToArray().Utf8().TrimEnd().EndsWith('}'));
    }

    [Theory]
    [MemberData(nameof(NotJson))]
    public void Decrypt_NotJson_FailsAsMalformed(JsonProcessor kind, string document)
    {
        // Without _ei (passed through when valid) and with it.
        foreach (string candidate in new[] { document, document.Replace("\"a\":\"x\"", "\"a\":\"x\"," + Envelope, StringComparison.Ordinal) })
        {
            var output = new ArrayBufferWriter<byte>();

            EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Decrypt(candidate.Utf8(), output, _encryptor));

            Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
            Assert.Equal(0, output.WrittenCount);
        }
    }

    [Theory]
    [MemberData(nameof(NumbersBeyondDouble))]
    public void RoundTrip_PlainNumberBeyondDouble_IsKeptOrRefusedNeverTurnedIntoAString(JsonProcessor kind, string number)
    {
        // The stream processor copies the literal; the Newtonsoft processor cannot represent it and must refuse
        // rather than write "Infinity" (a string where the document had a number).
        string document = "{\"id\":\"1\",\"a\":\"x\",\"b\":" + number + "}";
        EncryptionProcessor processor = Processors.Create(kind);

        if (kind == JsonProcessor.Stream)
        {
            byte[] encrypted = processor.Encrypt(document, _key, Options("/a"));
            Assert.Equal(document, processor.Decrypt(encrypted, _encryptor).Utf8());
            return;
        }

        EncryptionException onEncrypt = Assert.Throws<EncryptionException>(() => processor.Encrypt(document, _key, Options("/a")));
        byte[] streamEncrypted = new StreamProcessor().Encrypt(document, _key, Options("/a"));
        EncryptionException onDecrypt = Assert.Throws<EncryptionException>(() => processor.Decrypt(streamEncrypted, _encryptor));

        Assert.Equal(EncryptionErrorKind.LimitExceeded, onEncrypt.Kind);
        Assert.Equal(EncryptionErrorKind.LimitExceeded, onDecrypt.Kind);
    }

    [Theory]
    [MemberData(nameof(NonCanonicalBase64))]
    public void Decrypt_NonCanonicalBase64_FailsAsInvalidValue(JsonProcessor kind, string variant)
    {
        // 16 to 31 plaintext bytes: marker and cell are 82 bytes, so the base64 ends in "==".
        byte[] encrypted = Processors.Create(kind).Encrypt("{\"id\":\"1\",\"a\":\"secret value, 20 b.\"}", _key, Options("/a"));
        string base64 = Value(encrypted, "a");
        string changed = variant switch
        {
            "raw-spaces" => base64[..8] + "    " + base64[8..],
            "escaped-newlines" => base64[..8] + "\\n\\n\\n\\n" + base64[8..],
            "escaped-tabs" => base64[..8] + "\\t\\t\\t\\t" + base64[8..],
            "escaped-crlf" => base64[..8] + "\\r\\n\\r\\n" + base64[8..],
            _ => WithPaddingBitsSet(base64),
        };
        byte[] document = encrypted.Utf8().Replace(base64, changed, StringComparison.Ordinal).Utf8();

        EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Decrypt(document, _encryptor));

        Assert.Equal(EncryptionErrorKind.InvalidEncryptedValue, exception.Kind);
        Assert.Equal("/a", exception.Path);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_EscapedBase64AlphabetCharacters_AreStillAccepted(JsonProcessor kind)
    {
        // System.Text.Json's default encoder writes '+' as \u002B: the unescaped string is still canonical.
        for (int attempt = 0; attempt < 64; attempt++)
        {
            byte[] encrypted = Processors.Create(kind).Encrypt("{\"id\":\"1\",\"a\":\"secret value\"}", _key, Options("/a"));
            string base64 = Value(encrypted, "a");
            if (!base64.Contains('+', StringComparison.Ordinal))
            {
                continue;
            }

            byte[] document = encrypted.Utf8().Replace(base64, base64.Replace("+", "\\u002B", StringComparison.Ordinal), StringComparison.Ordinal).Utf8();

            JsonAssert.Equivalent("{\"id\":\"1\",\"a\":\"secret value\"}", Processors.Create(kind).Decrypt(document, _encryptor).Utf8());
            return;
        }
    }

    [Theory]
    [MemberData(nameof(FutureFormats))]
    public void Decrypt_UnknownFormatVersion_IsUnsupportedWhateverTheRestOfTheEnvelopeHolds(JsonProcessor kind, string envelope)
    {
        byte[] document = ("{\"id\":\"1\",\"a\":\"x\",\"_ei\":" + envelope + "}").Utf8();

        EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Decrypt(document, _encryptor));

        Assert.Equal(EncryptionErrorKind.UnsupportedFormat, exception.Kind);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_FormatVersionNotAnInteger_IsStillMalformed(JsonProcessor kind)
    {
        foreach (string format in new[] { "\"4\"", "4.5", "null", "{}" })
        {
            byte[] document = ("{\"id\":\"1\",\"a\":\"x\",\"_ei\":{\"_ef\":" + format + ",\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[]}}").Utf8();

            EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Decrypt(document, _encryptor));

            Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
        }
    }

    [Theory]
    [MemberData(nameof(DuplicateEnvelopeMembers))]
    public void Decrypt_DuplicateMemberInsideTheEnvelope_FailsAsMalformed(JsonProcessor kind, string envelope)
    {
        byte[] encrypted = Processors.Create(kind).Encrypt("{\"id\":\"1\",\"a\":\"x\"}", _key, Options("/a"));
        byte[] document = ("{\"id\":\"1\",\"a\":\"" + Value(encrypted, "a") + "\",\"_ei\":" + envelope + "}").Utf8();

        EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Decrypt(document, _encryptor));

        Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_EncryptedPathRepeatedWithANull_FailsAsMalformed(JsonProcessor kind)
    {
        byte[] encrypted = Processors.Create(kind).Encrypt("{\"id\":\"1\",\"ssn\":\"078-05-1120\"}", _key, Options("/ssn"));
        string value = Value(encrypted, "ssn");

        foreach (string properties in new[] { "\"ssn\":null,\"ssn\":\"" + value + "\"", "\"ssn\":\"" + value + "\",\"ssn\":null", "\"ssn\":null,\"ssn\":null" })
        {
            byte[] document = ("{\"id\":\"1\"," + properties + ",\"_ei\":{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[\"/ssn\"]}}").Utf8();

            EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Decrypt(document, _encryptor));

            Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_PathRepeatedWithANull_FailsAsMalformedAndWritesNothing(JsonProcessor kind)
    {
        foreach (string document in new[] { "{\"id\":\"1\",\"ssn\":null,\"ssn\":\"x\"}", "{\"id\":\"1\",\"ssn\":\"x\",\"ssn\":null}", "{\"id\":\"1\",\"ssn\":null,\"ssn\":null}" })
        {
            var output = new ArrayBufferWriter<byte>();

            EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Encrypt(document.Utf8(), output, _key, Options("/ssn")));

            Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void DecryptFeedPage_TwoDocumentsArrays_FailsAsMalformed(JsonProcessor kind)
    {
        byte[] encrypted = Processors.Create(kind).Encrypt("{\"id\":\"1\",\"a\":\"x\"}", _key, Options("/a"));
        string document = encrypted.Utf8();

        foreach (string page in new[]
        {
            "{\"_rid\":\"r\",\"Documents\":[" + document + "],\"Documents\":[" + document + "],\"_count\":1}",
            "{\"_rid\":\"r\",\"Documents\":[],\"Documents\":[" + document + "],\"_count\":1}",
            "{\"_rid\":\"r\",\"Documents\":null,\"Documents\":[" + document + "],\"_count\":1}",
        })
        {
            var output = new ArrayBufferWriter<byte>();

            EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).DecryptFeedPage(page.Utf8(), output, _encryptor));

            Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
            Assert.Equal(0, output.WrittenCount);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_OutputWouldExceedTheLimit_FailsAsLimitExceededSoThatItCanAlwaysBeDecrypted(JsonProcessor kind)
    {
        var limits = new EncryptionProcessorOptions { MaxDocumentLength = 1000 };
        EncryptionProcessor processor = Processors.Create(kind, limits);
        string fits = "{\"id\":\"1\",\"a\":\"" + new string('x', 500) + "\"}";
        string grows = "{\"id\":\"1\",\"a\":\"" + new string('x', 900) + "\"}";

        byte[] encrypted = processor.Encrypt(fits, _key, Options("/a"));
        var output = new ArrayBufferWriter<byte>();
        EncryptionException exception = Assert.Throws<EncryptionException>(() => processor.Encrypt(grows.Utf8(), output, _key, Options("/a")));

        Assert.InRange(encrypted.Length, 1, 1000);
        Assert.Equal(fits, processor.Decrypt(encrypted, _encryptor).Utf8().Replace(" ", string.Empty, StringComparison.Ordinal));
        Assert.True(grows.Length <= 1000);
        Assert.Equal(EncryptionErrorKind.LimitExceeded, exception.Kind);
        Assert.False(output.WrittenSpan.ToArray().Utf8().TrimEnd().EndsWith('}'));
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_OutputExactlyAtTheLimit_Succeeds(JsonProcessor kind)
    {
        string document = "{\"id\":\"1\",\"a\":\"" + new string('x', 500) + "\"}";
        byte[] encrypted = Processors.Create(kind).Encrypt(document, _key, Options("/a"));

        byte[] again = Processors.Create(kind, new EncryptionProcessorOptions { MaxDocumentLength = encrypted.Length }).Encrypt(document, _key, Options("/a"));
        Assert.Throws<EncryptionException>(() => Processors.Create(kind, new EncryptionProcessorOptions { MaxDocumentLength = encrypted.Length - 1 }).Encrypt(document, _key, Options("/a")));

        Assert.Equal(encrypted.Length, again.Length);
    }

    private static EncryptionOptions Options(params string[] paths) => new() { DataEncryptionKeyId = KeyId, PathsToEncrypt = paths };

    private static string Value(byte[] document, string name)
    {
        using JsonDocument parsed = JsonDocument.Parse(document);
        return parsed.RootElement.GetProperty(name).GetString()!;
    }

    // The last character before the padding carries bits the decoder drops: setting them gives another string for the same bytes.
    private static string WithPaddingBitsSet(string base64)
    {
        const string Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        int padding = base64.EndsWith("==", StringComparison.Ordinal) ? 2 : base64.EndsWith('=') ? 1 : 0;
        Assert.NotEqual(0, padding);
        int last = base64.Length - padding - 1;
        int index = Alphabet.IndexOf(base64[last], StringComparison.Ordinal);
        int changed = index | (padding == 2 ? 0x0F : 0x03);
        Assert.NotEqual(index, changed);
        return base64[..last] + Alphabet[changed] + base64[(last + 1)..];
    }
}
