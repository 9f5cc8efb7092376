using System.Buffers;
using System.Text;
using System.Text.Json;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary>
/// Bad metadata, bad values, wrong keys and tampering on decryption: a clear error of the right kind naming the
/// DEK id and path, never the plaintext or ciphertext, over both processors.
/// </summary>
public abstract class DecryptionErrorTests : IDisposable
{
    private const string KeyId = "dek1";
    private const string Secret = "secret é😀 value";

    private readonly DataEncryptionKey _key;
    private readonly TestEncryptor _encryptor = new();

    protected DecryptionErrorTests(TestKeyKind keyKind)
    {
        KeyKind = keyKind;
        _key = TestKeys.Create(keyKind);
        _encryptor.Add(KeyId, _key);
    }

    private static readonly (string Envelope, EncryptionErrorKind Kind)[] s_badEnvelopes =
    [
        ("\"_ei\":\"x\"", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":[]", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":{}", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":{\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[]}", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":{\"_ef\":\"3\",\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[]}", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":{\"_ef\":3,\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[]}", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":{\"_ef\":3,\"_en\":\"\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[]}", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":{\"_ef\":3,\"_en\":5,\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[]}", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":{\"_ef\":3,\"_en\":\"dek1\",\"_ep\":[]}", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\"}", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":\"/a\"}", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[\"a\"]}", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[\"/a/b\"]}", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[\"/a\",\"/a\"]}", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[1]}", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ed\":5,\"_ep\":[]}", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":{\"_ef\":4,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[]}", EncryptionErrorKind.UnsupportedFormat),
        ("\"_ei\":{\"_ef\":1,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[]}", EncryptionErrorKind.UnsupportedFormat),
        ("\"_ei\":{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"Rot13\",\"_ep\":[]}", EncryptionErrorKind.UnsupportedFormat),
        ("\"_ei\":{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"AEAes256CbcHmacSha256Randomized\",\"_ep\":[]}", EncryptionErrorKind.UnsupportedFormat),
        ("\"_ei\":{\"_ef\":2,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ed\":\"AAAA\",\"_ep\":[]}", EncryptionErrorKind.UnsupportedFormat),
        ("\"_ei\":{\"_ef\":2,\"_en\":\"dek1\",\"_ea\":\"AEAes256CbcHmacSha256Randomized\",\"_ep\":[\"/a\"]}", EncryptionErrorKind.MalformedDocument),
        ("\"_ei\":{\"_ef\":3,\"_en\":\"nokey\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[]}", EncryptionErrorKind.KeyUnavailable),
    ];

    public static TheoryData<JsonProcessor, string, EncryptionErrorKind> BadEnvelopes
    {
        get
        {
            var data = new TheoryData<JsonProcessor, string, EncryptionErrorKind>();
            foreach (JsonProcessor kind in new[] { JsonProcessor.Stream, JsonProcessor.Newtonsoft })
            {
                foreach ((string envelope, EncryptionErrorKind expected) in s_badEnvelopes)
                {
                    data.Add(kind, envelope, expected);
                }
            }

            return data;
        }
    }

    protected TestKeyKind KeyKind { get; }

    public void Dispose()
    {
        _key.Dispose();
        GC.SuppressFinalize(this);
    }

    [Theory]
    [MemberData(nameof(BadEnvelopes))]
    public void Decrypt_BadEnvelope_FailsWithItsKind(JsonProcessor kind, string envelope, EncryptionErrorKind expected)
    {
        byte[] document = Encoding.UTF8.GetBytes("{\"id\":\"1\",\"a\":\"x\"," + envelope + "}");

        EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Decrypt(document, _encryptor));

        Assert.Equal(expected, exception.Kind);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_UnsupportedAlgorithm_NamesIt(JsonProcessor kind)
    {
        byte[] document = "{\"a\":\"x\",\"_ei\":{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"Rot13\",\"_ep\":[\"/a\"]}}".Utf8();

        EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Decrypt(document, _encryptor));

        Assert.Contains("Rot13", exception.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_RepeatedEnvelope_FailsAsMalformed(JsonProcessor kind)
    {
        const string Envelope = "\"_ei\":{\"_ef\":3,\"_en\":\"dek1\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[]}";
        byte[] document = ("{\"a\":\"x\"," + Envelope + "," + Envelope + "}").Utf8();

        EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Decrypt(document, _encryptor));

        Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_BadBase64_FailsAsInvalidValueNamingPathAndKey(JsonProcessor kind)
    {
        foreach (string bad in new[] { "!!!!", "abc", "AAAA", "A===", "QUJD RA==" })
        {
            EncryptionException exception = AssertDecryptFails(kind, WithEnvelope("{\"id\":\"1\",\"a\":\"" + bad + "\"", "/a"));

            Assert.Equal(EncryptionErrorKind.InvalidEncryptedValue, exception.Kind);
            Assert.Equal("/a", exception.Path);
            Assert.Equal(KeyId, exception.DataEncryptionKeyId);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_ListedValueNotAString_FailsAsInvalidValue(JsonProcessor kind)
    {
        EncryptionException exception = AssertDecryptFails(kind, WithEnvelope("{\"id\":\"1\",\"a\":42", "/a"));

        Assert.Equal(EncryptionErrorKind.InvalidEncryptedValue, exception.Kind);
        Assert.Equal("/a", exception.Path);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_WrongKey_FailsAsInvalidCipherTextWithoutSecrets(JsonProcessor kind)
    {
        using var other = ReferenceDataEncryptionKey.CreateRandom();
        byte[] encrypted = Encrypt(other, Secret);

        EncryptionException exception = AssertDecryptFails(kind, encrypted);

        Assert.Equal(EncryptionErrorKind.InvalidCipherText, exception.Kind);
        Assert.Equal("/a", exception.Path);
        Assert.Equal(KeyId, exception.DataEncryptionKeyId);
        AssertNoSecrets(exception, encrypted);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_EveryByteOfTheBlobFlipped_Fails(JsonProcessor kind)
    {
        byte[] encrypted = Encrypt(_key, Secret);
        string base64 = Value(encrypted, "a");
        byte[] blob = Convert.FromBase64String(base64);
        EncryptionProcessor processor = Processors.Create(kind);

        for (int i = 0; i < blob.Length; i++)
        {
            byte[] tampered = (byte[])blob.Clone();
            tampered[i] ^= (byte)(1 << (i % 8));
            byte[] document = encrypted.Utf8().Replace(base64, Convert.ToBase64String(tampered), StringComparison.Ordinal).Utf8();

            EncryptionException exception = Assert.Throws<EncryptionException>(() => processor.Decrypt(document, _encryptor));

            // The marker is not authenticated (format 3): flipping it is caught by the marker/length/type checks instead.
            Assert.Equal(i == 0 ? EncryptionErrorKind.InvalidEncryptedValue : EncryptionErrorKind.InvalidCipherText, exception.Kind);
            AssertNoSecrets(exception, document);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_TruncatedOrExtendedBlob_Fails(JsonProcessor kind)
    {
        byte[] encrypted = Encrypt(_key, Secret);
        string base64 = Value(encrypted, "a");
        byte[] blob = Convert.FromBase64String(base64);
        EncryptionProcessor processor = Processors.Create(kind);

        foreach (byte[] changed in new[] { blob[..^1], blob[..^16], blob[..66], blob[..2], [.. blob, 0], [.. blob, .. new byte[16]] })
        {
            byte[] document = encrypted.Utf8().Replace(base64, Convert.ToBase64String(changed), StringComparison.Ordinal).Utf8();

            EncryptionException exception = Assert.Throws<EncryptionException>(() => processor.Decrypt(document, _encryptor));

            Assert.Equal(EncryptionErrorKind.InvalidCipherText, exception.Kind);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_UnknownMarker_FailsAsInvalidValue(JsonProcessor kind)
    {
        foreach (byte marker in new byte[] { 0, 1, 8, 255 })
        {
            EncryptionException exception = AssertDecryptFails(kind, Crafted(marker, "hello"u8.ToArray()));

            Assert.Equal(EncryptionErrorKind.InvalidEncryptedValue, exception.Kind);
            Assert.Equal("/a", exception.Path);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_WrongPlaintextLengthForScalarMarker_FailsAsInvalidValue(JsonProcessor kind)
    {
        foreach (byte marker in new byte[] { 3, 4, 5 })
        {
            foreach (int length in new[] { 0, 4, 7, 9, 16 })
            {
                EncryptionException exception = AssertDecryptFails(kind, Crafted(marker, new byte[length]));

                Assert.Equal(EncryptionErrorKind.InvalidEncryptedValue, exception.Kind);
            }
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_PlaintextNotValidForItsMarker_FailsAsInvalidValue(JsonProcessor kind)
    {
        byte[][] cases =
        [
            Crafted(2, [0xff, 0xfe]),
            Crafted(3, BitConverter.GetBytes(double.NaN)),
            Crafted(3, BitConverter.GetBytes(double.PositiveInfinity)),
            Crafted(7, "not json"u8.ToArray()),
            Crafted(7, "[1,2]"u8.ToArray()),
            Crafted(6, "{\"a\":1}"u8.ToArray()),
            Crafted(6, "[1,2] [3]"u8.ToArray()),
            Crafted(7, "{\"a\":"u8.ToArray()),
        ];

        foreach (byte[] document in cases)
        {
            EncryptionException exception = AssertDecryptFails(kind, document);

            Assert.Equal(EncryptionErrorKind.InvalidEncryptedValue, exception.Kind);
            Assert.Equal("/a", exception.Path);
            Assert.DoesNotContain("not json", exception.Message, StringComparison.Ordinal);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_ReinterpretedMarkerOfSameLength_DecryptsToAnotherValue(JsonProcessor kind)
    {
        // Documented format 3 weakness (security.md): the marker is not authenticated, so a long can be read as a double.
        byte[] document = Crafted(3, BitConverter.GetBytes(4607182418800017408L));

        byte[] decrypted = Processors.Create(kind).Decrypt(document, _encryptor);

        JsonAssert.Equivalent("{\"id\":\"1\",\"a\":1.0}", decrypted.Utf8());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_DecryptedContainerTooDeep_FailsAsLimitExceeded(JsonProcessor kind)
    {
        EncryptionProcessor processor = Processors.Create(kind, new EncryptionProcessorOptions { MaxDepth = 4 });

        // The value sits at level 2: [[[1]]] reaches level 4 (allowed), [[[[1]]]] level 5.
        byte[] allowed = processor.Decrypt(Crafted(6, "[[[1]]]"u8.ToArray()), _encryptor);
        EncryptionException exception = Assert.Throws<EncryptionException>(() => processor.Decrypt(Crafted(6, "[[[[1]]]]"u8.ToArray()), _encryptor));

        Assert.Contains("[[[1]]]", allowed.Utf8(), StringComparison.Ordinal);
        Assert.Equal(EncryptionErrorKind.LimitExceeded, exception.Kind);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_TruncatedDocument_FailsAsMalformed(JsonProcessor kind)
    {
        byte[] encrypted = Encrypt(_key, Secret);
        EncryptionProcessor processor = Processors.Create(kind);

        foreach (int cut in new[] { 1, 2, 10, encrypted.Length / 2, encrypted.Length - 2 })
        {
            EncryptionException exception = Assert.Throws<EncryptionException>(() => processor.Decrypt(encrypted[..^cut], _encryptor));

            Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_DocumentOverMaxLength_FailsAsLimitExceeded(JsonProcessor kind)
    {
        byte[] encrypted = Encrypt(_key, Secret);
        EncryptionProcessor processor = Processors.Create(kind, new EncryptionProcessorOptions { MaxDocumentLength = encrypted.Length - 1 });

        EncryptionException exception = Assert.Throws<EncryptionException>(() => processor.Decrypt(encrypted, _encryptor));

        Assert.Equal(EncryptionErrorKind.LimitExceeded, exception.Kind);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_ListedPropertyRepeated_FailsAsMalformed(JsonProcessor kind)
    {
        byte[] encrypted = Encrypt(_key, Secret);
        string base64 = Value(encrypted, "a");
        byte[] document = encrypted.Utf8().Replace("\"_ei\"", "\"a\":\"" + base64 + "\",\"_ei\"", StringComparison.Ordinal).Utf8();

        EncryptionException exception = AssertDecryptFails(kind, document);

        Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_Failure_NeverLeavesACompleteLookingDocument(JsonProcessor kind)
    {
        // /a decrypts, then /b fails.
        byte[] encrypted = Processors.Create(kind).Encrypt("{\"id\":\"1\",\"a\":\"first\",\"b\":\"second\"}", _key, new EncryptionOptions { DataEncryptionKeyId = KeyId, PathsToEncrypt = ["/a", "/b"] });
        byte[] document = encrypted.Utf8().Replace(Value(encrypted, "b"), "AAAA", StringComparison.Ordinal).Utf8();
        var output = new ArrayBufferWriter<byte>();

        Assert.Throws<EncryptionException>(() => Processors.Create(kind).Decrypt(document, output, _encryptor));

        string written = output.WrittenSpan.ToArray().Utf8();
        Assert.False(written.TrimEnd().EndsWith('}'), written);
    }

    private static string Value(byte[] document, string name)
    {
        using JsonDocument parsed = JsonDocument.Parse(document);
        return parsed.RootElement.GetProperty(name).GetString()!;
    }

    private static byte[] WithEnvelope(string documentWithoutClosingBrace, params string[] paths) =>
        (documentWithoutClosingBrace + ",\"_ei\":{\"_ef\":3,\"_en\":\"" + KeyId + "\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ed\":null,\"_ep\":["
            + string.Join(",", paths.Select(p => "\"" + p + "\"")) + "]}}").Utf8();

    private static void AssertNoSecrets(EncryptionException exception, byte[] document)
    {
        string text = exception.ToString();
        Assert.DoesNotContain("secret", text, StringComparison.Ordinal);
        string base64 = Value(document, "a");
        Assert.DoesNotContain(base64[..Math.Min(12, base64.Length)], text, StringComparison.Ordinal);
    }

    private static byte[] Encrypt(DataEncryptionKey key, string value) =>
        new StreamProcessor().Encrypt("{\"id\":\"1\",\"a\":" + JsonSerializer.Serialize(value) + "}", key, new EncryptionOptions { DataEncryptionKeyId = KeyId, PathsToEncrypt = ["/a"] });

    [Fact]
    public void StreamDecrypt_PlaintextRejected_LeavesNoPlaintextInTheOutputsFreeSpace()
    {
        // The stream processor decrypts into the output's free space; a value it rejects must be wiped there.
        byte[][] cases =
        [
            Crafted(2, [.. "secret text"u8, 0xff]),
            Crafted(7, "secret text"u8.ToArray()),
            Crafted(3, BitConverter.GetBytes(double.NaN)),
        ];

        foreach (byte[] document in cases)
        {
            var output = new ArrayBufferWriter<byte>(4096);

            Assert.Throws<EncryptionException>(() => new StreamProcessor().Decrypt(document, output, _encryptor));

            Assert.Equal(-1, output.GetSpan().IndexOfAnyExcept((byte)0));
        }
    }

    private byte[] Crafted(byte marker, byte[] plainText)
    {
        byte[] blob = [marker, .. _key.EncryptData(plainText)];
        return WithEnvelope("{\"id\":\"1\",\"a\":\"" + Convert.ToBase64String(blob) + "\"", "/a");
    }

    private EncryptionException AssertDecryptFails(JsonProcessor kind, byte[] document) =>
        Assert.Throws<EncryptionException>(() => Processors.Create(kind).Decrypt(document, _encryptor));
}
