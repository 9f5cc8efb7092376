using System.Text;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary>
/// Format version 2 (wire-format.md §3.3), read only: the listed properties were removed, serialized together,
/// encrypted once with the legacy algorithm and stored base64 in <c>_ed</c>.
/// </summary>
public sealed class LegacyFormatTests : IDisposable
{
    private const string KeyId = "legacyDek";

    private readonly ReferenceDataEncryptionKey _legacyKey = ReferenceDataEncryptionKey.CreateRandom(CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized);
    private readonly TestEncryptor _encryptor = new();

    public LegacyFormatTests()
    {
        _encryptor.Add(KeyId, _legacyKey);
    }

    public static MatrixTheoryData<JsonProcessor, string> Layouts => new(
        [JsonProcessor.Stream, JsonProcessor.Newtonsoft],
        ["last", "first", "only", "middle"]);

    public void Dispose() => _legacyKey.Dispose();

    [Theory]
    [MemberData(nameof(Layouts))]
    public void Decrypt_FormatTwoDocument_RestoresThePropertiesAndRemovesTheMetadata(JsonProcessor kind, string layout)
    {
        const string Hidden = "{\"ssn\":\"123-45-6789\",\"n\":5,\"o\":{\"a\":[1,null]}}";
        string envelope = LegacyEnvelope(_legacyKey, Hidden, "/ssn", "/n", "/o");
        (string document, string expected) = layout switch
        {
            "last" => ("{\"id\":\"1\",\"plain\":true," + envelope + "}", "{\"id\":\"1\",\"plain\":true,\"ssn\":\"123-45-6789\",\"n\":5,\"o\":{\"a\":[1,null]}}"),
            "first" => ("{" + envelope + ",\"id\":\"1\"}", "{\"id\":\"1\",\"ssn\":\"123-45-6789\",\"n\":5,\"o\":{\"a\":[1,null]}}"),
            "middle" => ("{\"id\":\"1\"," + envelope + ",\"z\":0}", "{\"id\":\"1\",\"z\":0,\"ssn\":\"123-45-6789\",\"n\":5,\"o\":{\"a\":[1,null]}}"),
            _ => ("{" + envelope + "}", Hidden),
        };

        byte[] decrypted = Processors.Create(kind).Decrypt(Encoding.UTF8.GetBytes(document), _encryptor, out DecryptionContext? context);

        JsonAssert.Equivalent(expected, decrypted.Utf8());
        DecryptionInfo info = Assert.Single(context!.DecryptionInfoList);
        Assert.Equal(KeyId, info.DataEncryptionKeyId);
        Assert.Equal(["/ssn", "/n", "/o"], info.PathsDecrypted);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_FormatTwo_ContextListsThePropertiesTheBlobHeld(JsonProcessor kind)
    {
        // _ep lists every requested path; the context (as Microsoft's package reports it) lists what came back.
        string document = "{\"id\":\"1\"," + LegacyEnvelope(_legacyKey, "{\"s\u0073n\":\"x\"}", "/ssn", "/absent") + "}";

        Processors.Create(kind).Decrypt(document.Utf8(), _encryptor, out DecryptionContext? context);

        Assert.Equal(["/ssn"], Assert.Single(context!.DecryptionInfoList).PathsDecrypted);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_FormatTwoWithEmptyBlobObject_OnlyRemovesTheMetadata(JsonProcessor kind)
    {
        string document = "{\"id\":\"1\"," + LegacyEnvelope(_legacyKey, " { } ") + "}";

        byte[] decrypted = Processors.Create(kind).Decrypt(document.Utf8(), _encryptor);

        Assert.Equal("{\"id\":\"1\"}", decrypted.Utf8());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_FormatTwoWithCurrentLabelsKey_FailsAsInvalidCipherText(JsonProcessor kind)
    {
        // Same root key, current labels: the derived keys differ, so the tag cannot match.
        byte[] root = System.Security.Cryptography.RandomNumberGenerator.GetBytes(32);
        using var currentLabels = new ReferenceDataEncryptionKey(root);
        using var legacyLabels = new ReferenceDataEncryptionKey(root, CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized);
        var encryptor = new TestEncryptor().Add(KeyId, legacyLabels);
        string document = "{\"id\":\"1\"," + LegacyEnvelope(currentLabels, "{\"a\":1}", "/a") + "}";

        EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Decrypt(document.Utf8(), encryptor));

        Assert.Equal(EncryptionErrorKind.InvalidCipherText, exception.Kind);
        Assert.Equal(KeyId, exception.DataEncryptionKeyId);
        Assert.Equal(1, legacyLabels.DecryptCount);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_FormatTwoBlobNotAnObject_FailsAsInvalidValue(JsonProcessor kind)
    {
        foreach (string hidden in new[] { "[1]", "\"x\"", "{\"a\":", "not json" })
        {
            string document = "{\"id\":\"1\"," + LegacyEnvelope(_legacyKey, hidden, "/a") + "}";

            EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Decrypt(document.Utf8(), _encryptor));

            Assert.Equal(EncryptionErrorKind.InvalidEncryptedValue, exception.Kind);
            Assert.DoesNotContain("not json", exception.Message, StringComparison.Ordinal);
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_FormatTwoBadBase64_FailsAsInvalidValue(JsonProcessor kind)
    {
        string document = "{\"id\":\"1\",\"_ei\":{\"_ef\":2,\"_en\":\"" + KeyId + "\",\"_ea\":\"AEAes256CbcHmacSha256Randomized\",\"_ed\":\"@@@@\",\"_ep\":[\"/a\"]}}";

        EncryptionException exception = Assert.Throws<EncryptionException>(() => Processors.Create(kind).Decrypt(document.Utf8(), _encryptor));

        Assert.Equal(EncryptionErrorKind.InvalidEncryptedValue, exception.Kind);
    }

    private static string LegacyEnvelope(ReferenceDataEncryptionKey key, string hiddenJson, params string[] paths)
    {
        string blob = Convert.ToBase64String(key.EncryptData(Encoding.UTF8.GetBytes(hiddenJson)));
        return "\"_ei\":{\"_ef\":2,\"_en\":\"" + KeyId + "\",\"_ea\":\"AEAes256CbcHmacSha256Randomized\",\"_ed\":\"" + blob + "\",\"_ep\":["
            + string.Join(",", paths.Select(p => "\"" + p + "\"")) + "]}";
    }
}
