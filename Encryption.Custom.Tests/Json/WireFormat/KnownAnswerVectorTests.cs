using System.Text;
using System.Text.Json;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json.WireFormat;

/// <summary>
/// The known-answer vectors of wire-format.md §2 (root key 01..20, fixed IV 00..0f), asserted byte for byte
/// through both processors: the type markers, the 8-byte scalar encodings and the base64 framing.
/// </summary>
/// <remarks>
/// Microsoft.Azure.Cosmos.Encryption.Custom (and Microsoft.Data.Encryption.Cryptography) do not restore from this
/// machine's package source, so no test here can call Microsoft's package. Compatibility rests on these vectors
/// and on the §3.2 fixture (see <see cref="FixtureTests"/>), which the team verified against a real document
/// written by that package.
/// </remarks>
public sealed class KnownAnswerVectorTests
{
    private const string HelloBlob = "AgFPKXw7s9jtbwh7oU9mEKdwJWAUgB8pr4hti+1nvIfcoQABAgMEBQYHCAkKCwwNDg92uiY0TEw4p5D3+lQLmRnj";
    private const string FortyTwoBlob = "BAHzvw7xKshA+BLmTMyKy19z2IcniZw1mazo+B7A3IzQ8gABAgMEBQYHCAkKCwwNDg9Nd7RrEgaV6utmtwr3e/xv";
    private const string TrueBlob = "BQGhALrHEJ/VDddKse4eoT0HUisSXHfuL3Qm4Nhleo2TcQABAgMEBQYHCAkKCwwNDg9Xtd6h3d59y8Xi+aJ8Zf0f";

    public static TheoryData<string, string, string, string> DerivedKeys => new()
    {
        { CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, "encryption", "a95fcb709ee9984771c647c765f5351c3bc77fbf91d0e13c699289d143a4d4d7", "SQL" },
        { CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, "MAC", "5e63796429de42ebd1a886f948ff46d898a153262c54ee4ac52c338062c05bda", "SQL" },
        { CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, "IV", "70d2d04a1c986bbd690d8acaa0731f49533288742cda792c76cf6dd78b49cc34", "Encryption.Custom" },
        { CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized, "encryption", "5c99597047429c36c17bf3a5ef3b2f53630adf1487030827ce61a279940933fd", "Cosmos" },
        { CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized, "MAC", "b7490a4b7fc3456ed1a7aae26cf51794167d1538b68c4fb4c37e9b1eef9488e1", "Cosmos" },
        { CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized, "IV", "70d2d04a1c986bbd690d8acaa0731f49533288742cda792c76cf6dd78b49cc34", "Encryption.Custom" },
    };

    [Theory]
    [MemberData(nameof(DerivedKeys))]
    public void ReferenceKey_DerivedSubKey_MatchesVector(string algorithm, string which, string expectedHex, string labelFamily)
    {
        string label = which switch
        {
            "encryption" => ReferenceDataEncryptionKey.EncryptionLabel(algorithm),
            "MAC" => ReferenceDataEncryptionKey.MacLabel(algorithm),
            _ => ReferenceDataEncryptionKey.IvLabel(algorithm),
        };

        byte[] derived = ReferenceDataEncryptionKey.DeriveSubKey(ReferenceDataEncryptionKey.VectorRootKey, label);

        Assert.Contains(labelFamily, label, StringComparison.Ordinal);
        Assert.Equal(expectedHex, Convert.ToHexStringLower(derived));
    }

    // wire-format.md "Deterministic values": IVs and whole values (marker ‖ cell, base64), root key 01..20.
    public static TheoryData<string, string, byte, string, string, string> DeterministicVectors => new()
    {
        { "/ssn", "\"078-05-1120\"", 2, "3037382d30352d31313230", "703f7d66c54d2f0748f063346ea0f364", "AgEGWEj7E0qZ0pF8+aVUvV3D24fYBN+GVIGpbSFhhLHz8XA/fWbFTS8HSPBjNG6g82TsWU3ggPo6Fd62hb8k51DF" },
        { "/taxId", "\"078-05-1120\"", 2, "3037382d30352d31313230", "34263006142f1c437d78330a9f2f422a", "AgHoiI3I91O3PTaS+9PNHO3XSMfLpuPjl0C/P0jUEPKkfTQmMAYULxxDfXgzCp8vQir42pY65RTro6zXokcbB5H8" },
        { "/age", "42", 4, "2a00000000000000", "3088f86b311ab23b66cfbbe934de71ca", "BAG3Z5coUq3faG0laqRRYJOrs1ipg6reU97xnHpQCPpFqjCI+GsxGrI7Zs+76TTeccrvVAX21rRa49Cm5+a/MgM2" },
        { "/score", "-2.5", 3, "00000000000004c0", "7c38ba1a8684652f76583c7a59584055", "AwHQUJOf3isSoeVzqqEK03G5uYScTRK1XXbJM253yO42Inw4uhqGhGUvdlg8ellYQFUBHcK2uyrl7IGjz2+sEDXw" },
        { "/active", "true", 5, "0100000000000000", "2993d8937f284d0b7ad9baac5413b044", "BQENo0khH/3uTc4RGpm6pHI2+PZJTsAMnpjw+a5lJWqm3imT2JN/KE0Letm6rFQTsEQ3V7nyMhC0RvS/iK3fiQXu" },
    };

    [Theory]
    [MemberData(nameof(DeterministicVectors))]
    public void ReferenceKey_DeterministicIv_MatchesVector(string path, string json, byte marker, string plainTextHex, string ivHex, string blob)
    {
        _ = json;
        _ = blob;
        using ReferenceDataEncryptionKey key = ReferenceDataEncryptionKey.ForVectors();

        Assert.Equal(ivHex, Convert.ToHexStringLower(key.DeterministicIv(path, marker, Convert.FromHexString(plainTextHex))));
    }

    [Theory]
    [MemberData(nameof(DeterministicVectors))]
    public void Encrypt_DeterministicPath_WritesTheVectorBlobWithBothProcessorsAndBothKeys(string path, string json, byte marker, string plainTextHex, string ivHex, string blob)
    {
        _ = plainTextHex;
        string[] paths = [path];
        var options = new EncryptionOptions { DataEncryptionKeyId = "vectors", PathsToEncrypt = paths, DeterministicPaths = paths };
        string document = $"{{\"id\":\"v\",\"{path[1..]}\":{json}}}";
        using DataEncryptionKey library = DataEncryptionKey.Create(ReferenceDataEncryptionKey.VectorRootKey.ToArray(), CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        using var referenceVectors = new ReferenceDataEncryptionKey(ReferenceDataEncryptionKey.VectorRootKey);

        foreach (JsonProcessor kind in new[] { JsonProcessor.Stream, JsonProcessor.Newtonsoft })
        {
            foreach (DataEncryptionKey key in new DataEncryptionKey[] { library, referenceVectors })
            {
                byte[] encrypted = Processors.Create(kind).Encrypt(document, key, options);
                using JsonDocument parsed = JsonDocument.Parse(encrypted);
                string value = parsed.RootElement.GetProperty(path[1..]).GetString()!;
                Assert.Equal(blob, value);
                Assert.Equal(marker, Convert.FromBase64String(value)[0]);
                Assert.Equal(ivHex, Convert.ToHexStringLower(Convert.FromBase64String(value), 34, 16));
            }
        }
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Encrypt_VectorValuesWithFixedIv_WritesTheVectorBlobs(JsonProcessor kind)
    {
        using ReferenceDataEncryptionKey key = ReferenceDataEncryptionKey.ForVectors();
        var options = new EncryptionOptions { DataEncryptionKeyId = "vectors", PathsToEncrypt = ["/s", "/n", "/b"] };

        byte[] encrypted = Processors.Create(kind).Encrypt("{\"id\":\"v\",\"s\":\"hello\",\"n\":42,\"b\":true}", key, options);

        using JsonDocument document = JsonDocument.Parse(encrypted);
        Assert.Equal(HelloBlob, document.RootElement.GetProperty("s").GetString());
        Assert.Equal(FortyTwoBlob, document.RootElement.GetProperty("n").GetString());
        Assert.Equal(TrueBlob, document.RootElement.GetProperty("b").GetString());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_DocumentCarryingTheVectorBlobs_RestoresHello42True(JsonProcessor kind)
    {
        using ReferenceDataEncryptionKey key = ReferenceDataEncryptionKey.ForVectors();
        var encryptor = new TestEncryptor().Add("vectors", key);
        string document = $"{{\"id\":\"v\",\"s\":\"{HelloBlob}\",\"n\":\"{FortyTwoBlob}\",\"b\":\"{TrueBlob}\",\"_ei\":{{\"_ef\":3,\"_en\":\"vectors\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ed\":null,\"_ep\":[\"/s\",\"/n\",\"/b\"]}}}}";

        byte[] decrypted = Processors.Create(kind).Decrypt(Encoding.UTF8.GetBytes(document), encryptor);

        Assert.Equal("{\"id\":\"v\",\"s\":\"hello\",\"n\":42,\"b\":true}", decrypted.Utf8());
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_VectorBlobsWithEscapedBase64_RestoresTheValues(JsonProcessor kind)
    {
        // System.Text.Json's default encoder writes '+' as \u002B: such documents must still decrypt.
        using ReferenceDataEncryptionKey key = ReferenceDataEncryptionKey.ForVectors();
        var encryptor = new TestEncryptor().Add("vectors", key);
        string escaped = FortyTwoBlob.Replace("+", "\\u002B", StringComparison.Ordinal).Replace("/", "\\/", StringComparison.Ordinal);
        string document = $"{{\"n\":\"{escaped}\",\"_ei\":{{\"_ef\":3,\"_en\":\"vectors\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ep\":[\"\\/n\"]}}}}";

        byte[] decrypted = Processors.Create(kind).Decrypt(Encoding.UTF8.GetBytes(document), encryptor);

        Assert.Equal("{\"n\":42}", decrypted.Utf8());
    }
}
