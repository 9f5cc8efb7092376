using System.Text;
using System.Text.Json;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json.WireFormat;

/// <summary>
/// The §3.2 fixture of wire-format.md (root key 01..20, DEK id <c>fixtureDek</c>), which the team checked against
/// a real document written by Microsoft's package (that package does not restore here, see
/// <see cref="KnownAnswerVectorTests"/>): exact blob lengths and plaintexts, and decryption by both processors.
/// </summary>
public sealed class FixtureTests : IDisposable
{
    private const string KeyId = "fixtureDek";

    private readonly ReferenceDataEncryptionKey _key = ReferenceDataEncryptionKey.ForVectors();
    private readonly TestEncryptor _encryptor = new();

    public FixtureTests()
    {
        _encryptor.Add(KeyId, _key);
    }

    public static TheoryData<string, int, string> ExpectedBlobs => new()
    {
        { "SensStr", 82, Convert.ToHexStringLower(Encoding.UTF8.GetBytes("secret é😀 value")) },
        { "SensLong", 66, "0100000000002000" },
        { "SensDouble", 66, "00000000000004c0" },
        { "SensBool", 66, "0100000000000000" },
        { "SensObj", 82, Convert.ToHexStringLower("{\"inner\":\"obj \\\"x\\\"\",\"n\":null}"u8) },
        { "SensArr", 82, Convert.ToHexStringLower("[1,\"two\",false,null]"u8) },
    };

    public void Dispose() => _key.Dispose();

    [Fact]
    public void FixtureString_IsNineteenUtf8Bytes()
    {
        Assert.Equal(19, Encoding.UTF8.GetByteCount("secret é😀 value"));
    }

    [Theory]
    [MemberData(nameof(ExpectedBlobs))]
    public void StreamEncrypt_Fixture_BlobHasTheExpectedLengthAndPlaintext(string property, int blobLength, string plainTextHex) =>
        AssertBlob(JsonProcessor.Stream, property, blobLength, plainTextHex);

    [Theory]
    [MemberData(nameof(ExpectedBlobs))]
    public void NewtonsoftEncrypt_Fixture_BlobHasTheExpectedLengthAndPlaintext(string property, int blobLength, string plainTextHex) =>
        AssertBlob(JsonProcessor.Newtonsoft, property, blobLength, plainTextHex);

    [Fact]
    public void Encrypt_FixtureWithFixedIvs_BothProcessorsWriteTheSameBytes()
    {
        DocumentShape shape = DocumentShapes.Get("fixture");

        byte[] stream = new StreamProcessor().Encrypt(shape.Utf8, _key, shape.Options(KeyId));
        byte[] newtonsoft = new NewtonsoftProcessor().Encrypt(shape.Utf8, _key, shape.Options(KeyId));

        Assert.Equal(newtonsoft.Utf8(), stream.Utf8());
        Assert.EndsWith(
            ",\"_ei\":{\"_ef\":3,\"_en\":\"fixtureDek\",\"_ea\":\"MdeAeadAes256CbcHmac256Randomized\",\"_ed\":null,\"_ep\":[\"/SensStr\",\"/SensLong\",\"/SensDouble\",\"/SensBool\",\"/SensObj\",\"/SensArr\"]}}",
            stream.Utf8(),
            StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors.Pairs), MemberType = typeof(Processors))]
    public void Decrypt_FixtureEncryptedWithFixedIvs_GivesTheFixtureBack(JsonProcessor encryptWith, JsonProcessor decryptWith)
    {
        DocumentShape shape = DocumentShapes.Get("fixture");
        byte[] encrypted = Processors.Create(encryptWith).Encrypt(shape.Utf8, _key, shape.Options(KeyId));

        byte[] decrypted = Processors.Create(decryptWith).Decrypt(encrypted, _encryptor, out DecryptionContext? context);

        JsonAssert.Equivalent(shape.Json, decrypted.Utf8());
        DecryptionInfo info = Assert.Single(context!.DecryptionInfoList);
        Assert.Equal(KeyId, info.DataEncryptionKeyId);
        Assert.Equal(DocumentShapes.FixturePaths, info.PathsDecrypted);
    }

    private void AssertBlob(JsonProcessor kind, string property, int blobLength, string plainTextHex)
    {
        DocumentShape shape = DocumentShapes.Get("fixture");
        byte[] encrypted = Processors.Create(kind).Encrypt(shape.Utf8, _key, shape.Options(KeyId));

        using JsonDocument document = JsonDocument.Parse(encrypted);
        byte[] blob = Convert.FromBase64String(document.RootElement.GetProperty(property).GetString()!);
        byte[] plainText = _key.DecryptData(blob[1..]);

        Assert.Equal(blobLength, blob.Length);
        Assert.Equal(plainTextHex, Convert.ToHexStringLower(plainText));
    }

    [Theory]
    [MemberData(nameof(Processors.Pairs), MemberType = typeof(Processors))]
    public void Decrypt_FixtureFromTheReferenceKey_WithTheLibraryKeyOfTheSameRoot(JsonProcessor encryptWith, JsonProcessor decryptWith)
    {
        // The library's protected key and the independent oracle agree on the §3.2 fixture, both ways.
        DocumentShape shape = DocumentShapes.Get("fixture");
        using DataEncryptionKey library = TestKeys.Create(TestKeyKind.Protected, ReferenceDataEncryptionKey.VectorRootKey);
        var libraryEncryptor = new TestEncryptor().Add(KeyId, library);

        byte[] fromOracle = Processors.Create(encryptWith).Encrypt(shape.Utf8, _key, shape.Options(KeyId));
        byte[] fromLibrary = Processors.Create(encryptWith).Encrypt(shape.Utf8, library, shape.Options(KeyId));

        JsonAssert.Equivalent(shape.Json, Processors.Create(decryptWith).Decrypt(fromOracle, libraryEncryptor).Utf8());
        JsonAssert.Equivalent(shape.Json, Processors.Create(decryptWith).Decrypt(fromLibrary, _encryptor).Utf8());
    }
}
