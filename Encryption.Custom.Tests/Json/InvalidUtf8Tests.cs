using System.Buffers;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary>
/// Invalid UTF-8 anywhere in a document (names and values, encrypted or not) is refused by both processors with
/// <see cref="EncryptionErrorKind.MalformedDocument"/> before anything is written: a value encrypted from such bytes
/// could never be decrypted again.
/// </summary>
public sealed class InvalidUtf8Tests : IDisposable
{
    private const string KeyId = "dek1";

    private static readonly byte[][] s_invalidSequences =
    [
        [0xE9], // Latin-1 "é" (caf\xe9)
        [0xED, 0xA0, 0x80], // CESU-8 encoded surrogate
        [0xC0, 0xAF], // overlong "/"
        [0xF4, 0x90, 0x80, 0x80], // beyond U+10FFFF
        [0xE2, 0x82], // truncated sequence
        [0x80], // lone continuation byte
    ];

    private readonly ReferenceDataEncryptionKey _key = ReferenceDataEncryptionKey.CreateRandom();
    private readonly TestEncryptor _encryptor = new();

    public InvalidUtf8Tests() => _encryptor.Add(KeyId, _key);

    public static TheoryData<JsonProcessor, int, string> Cases
    {
        get
        {
            var data = new TheoryData<JsonProcessor, int, string>();
            foreach (JsonProcessor kind in new[] { JsonProcessor.Stream, JsonProcessor.Newtonsoft })
            {
                for (int i = 0; i < s_invalidSequences.Length; i++)
                {
                    // Where the bytes go: an encrypted value, a plain value, a plain name, an encrypted name's neighbour in a nested object.
                    foreach (string place in new[] { "encryptedValue", "plainValue", "plainName", "nestedEncrypted", "nestedPlain" })
                    {
                        data.Add(kind, i, place);
                    }
                }
            }

            return data;
        }
    }

    public void Dispose() => _key.Dispose();

    [Theory]
    [MemberData(nameof(Cases))]
    public void Encrypt_InvalidUtf8_FailsAsMalformedAndWritesNothing(JsonProcessor kind, int sequence, string place)
    {
        byte[] document = Document(s_invalidSequences[sequence], place);
        var output = new ArrayBufferWriter<byte>();

        EncryptionException exception = Assert.Throws<EncryptionException>(
            () => Processors.Create(kind).Encrypt(document, output, _key, new EncryptionOptions { DataEncryptionKeyId = KeyId, PathsToEncrypt = ["/a", "/o"] }));

        Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
        Assert.Equal(0, output.WrittenCount);
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void Decrypt_InvalidUtf8_FailsAsMalformedAndWritesNothing(JsonProcessor kind, int sequence, string place)
    {
        // A valid encrypted document with the bytes spliced into a plain part (encrypted values are base64).
        byte[] encrypted = Processors.Create(kind).Encrypt("{\"id\":\"1\",\"s\":\"secret\",\"n\":\"x\",\"p\":{\"q\":\"y\"}}", _key, new EncryptionOptions { DataEncryptionKeyId = KeyId, PathsToEncrypt = ["/s"] });
        byte[] document = place switch
        {
            "plainName" => Splice(encrypted, "\"n\"", [.. "\"n"u8, .. s_invalidSequences[sequence], .. "\""u8]),
            "nestedPlain" or "nestedEncrypted" => Splice(encrypted, "\"q\"", [.. "\"q"u8, .. s_invalidSequences[sequence], .. "\""u8]),
            _ => Splice(encrypted, "\"x\"", [.. "\"x"u8, .. s_invalidSequences[sequence], .. "\""u8]),
        };
        var output = new ArrayBufferWriter<byte>();

        EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Decrypt(document, output, _encryptor));

        Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
        Assert.Equal(0, output.WrittenCount);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void DecryptFeedPage_InvalidUtf8_FailsAsMalformedAndWritesNothing(JsonProcessor kind)
    {
        byte[] page = [.. "{\"_rid\":\"r\",\"Documents\":[{\"id\":\"1\",\"a\":\"caf"u8, 0xE9, .. "\"}],\"_count\":1}"u8];
        var output = new ArrayBufferWriter<byte>();

        EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).DecryptFeedPage(page, output, _encryptor));

        Assert.Equal(EncryptionErrorKind.MalformedDocument, exception.Kind);
        Assert.Equal(0, output.WrittenCount);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void RoundTrip_ValidMultiByteUtf8_StillWorks(JsonProcessor kind)
    {
        const string Json = "{\"id\":\"1\",\"caf\u00e9\":\"\u00e9\ud83d\ude00\u4e2d\",\"a\":\"\u00e9\ud83d\ude00\u4e2d\"}";
        EncryptionProcessor processor = Processors.Create(kind);

        byte[] encrypted = processor.Encrypt(Json, _key, new EncryptionOptions { DataEncryptionKeyId = KeyId, PathsToEncrypt = ["/a"] });

        JsonAssert.Equivalent(Json, processor.Decrypt(encrypted, _encryptor).Utf8());
    }

    private static byte[] Document(byte[] invalid, string place) => place switch
    {
        "encryptedValue" => [.. "{\"id\":\"1\",\"a\":\"caf"u8, .. invalid, .. "\"}"u8],
        "plainValue" => [.. "{\"id\":\"1\",\"a\":\"ok\",\"b\":\"caf"u8, .. invalid, .. "\"}"u8],
        "plainName" => [.. "{\"id\":\"1\",\"a\":\"ok\",\"caf"u8, .. invalid, .. "\":1}"u8],
        "nestedEncrypted" => [.. "{\"id\":\"1\",\"o\":{\"k"u8, .. invalid, .. "\":1}}"u8],
        _ => [.. "{\"id\":\"1\",\"a\":\"ok\",\"p\":[\"x"u8, .. invalid, .. "\"]}"u8],
    };

    private static byte[] Splice(byte[] document, string find, byte[] replacement)
    {
        byte[] needle = find.Utf8();
        int at = document.AsSpan().IndexOf(needle);
        Assert.True(at >= 0, find);
        return [.. document[..at], .. replacement, .. document[(at + needle.Length)..]];
    }
}
