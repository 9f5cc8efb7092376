using System.Text;
using System.Text.Json.Nodes;
using Encryption.Custom.Keys.Cosmos;

namespace Encryption.Custom.Tests.Keys.Cosmos;

public class DataEncryptionKeyPropertiesSerializerTests
{
    /// <summary>
    /// A DEK document as Microsoft's package stores it: its public metadata constructors give type <c>custom</c> and
    /// no algorithm; Newtonsoft writes the members in declaration order and omits nulls; Cosmos adds system properties.
    /// </summary>
    private const string MicrosoftDocument =
        "{\"id\":\"dek1\",\"encryptionAlgorithm\":\"MdeAeadAes256CbcHmac256Randomized\",\"wrappedDataEncryptionKey\":\"AQIDBAU=\"," +
        "\"keyWrapMetadata\":{\"type\":\"custom\",\"name\":\"kek\",\"value\":\"https://v.vault.azure.net/keys/kek\"},\"createTime\":1700000000," +
        "\"_rid\":\"AAAAAA==\",\"_self\":\"dbs/a/colls/b/docs/c/\",\"_etag\":\"\\\"0700-0000\\\"\",\"_attachments\":\"attachments/\",\"_ts\":1700000001}";

    [Fact]
    public void Read_MicrosoftDocument_ReadsEveryMember()
    {
        DataEncryptionKeyProperties properties = DataEncryptionKeyPropertiesSerializer.Read(Encoding.UTF8.GetBytes(MicrosoftDocument));

        Assert.Equal("dek1", properties.Id);
        Assert.Equal("MdeAeadAes256CbcHmac256Randomized", properties.EncryptionAlgorithm);
        Assert.Equal(new byte[] { 1, 2, 3, 4, 5 }, properties.WrappedDataEncryptionKey.ToArray());
        Assert.Equal(new EncryptionKeyWrapMetadata("kek", "https://v.vault.azure.net/keys/kek"), properties.EncryptionKeyWrapMetadata);
        Assert.Equal(DateTimeOffset.FromUnixTimeSeconds(1700000000), properties.CreatedTime);
        Assert.Equal(DateTimeOffset.FromUnixTimeSeconds(1700000001), properties.LastModified);
        Assert.Equal("\"0700-0000\"", properties.ETag);
        Assert.Equal("AAAAAA==", properties.ResourceId);
        Assert.Equal("dbs/a/colls/b/docs/c/", properties.SelfLink);
    }

    [Fact]
    public void Write_NewKey_ProducesMicrosoftShapeWithoutSystemProperties()
    {
        var properties = new DataEncryptionKeyProperties(
            "dek1",
            "MdeAeadAes256CbcHmac256Randomized",
            new byte[] { 1, 2, 3, 4, 5 },
            new EncryptionKeyWrapMetadata("akv", "kek", "https://v.vault.azure.net/keys/kek/0123", "RSA-OAEP-256"),
            DateTimeOffset.FromUnixTimeSeconds(1700000000));

        string json = Encoding.UTF8.GetString(DataEncryptionKeyPropertiesSerializer.ToUtf8Bytes(properties, includeSystemProperties: false));

        Assert.Equal(
            "{\"id\":\"dek1\",\"encryptionAlgorithm\":\"MdeAeadAes256CbcHmac256Randomized\",\"wrappedDataEncryptionKey\":\"AQIDBAU=\"," +
            "\"keyWrapMetadata\":{\"type\":\"akv\",\"name\":\"kek\",\"value\":\"https://v.vault.azure.net/keys/kek/0123\",\"algorithm\":\"RSA-OAEP-256\"}," +
            "\"createTime\":1700000000}",
            json);
    }

    [Fact]
    public void WriteThenRead_WithSystemProperties_RoundTrips()
    {
        DataEncryptionKeyProperties original = DataEncryptionKeyPropertiesSerializer.Read(Encoding.UTF8.GetBytes(MicrosoftDocument));

        DataEncryptionKeyProperties copy = DataEncryptionKeyPropertiesSerializer.Read(DataEncryptionKeyPropertiesSerializer.ToUtf8Bytes(original, includeSystemProperties: true));

        Assert.Equal(original, copy);
    }

    [Fact]
    public void Read_MetadataWithoutNameAndAlgorithm_LeavesThemNull()
    {
        string json = "{\"id\":\"dek1\",\"encryptionAlgorithm\":\"A\",\"wrappedDataEncryptionKey\":\"AQ==\",\"keyWrapMetadata\":{\"type\":\"custom\",\"value\":\"v\",\"name\":null}}";

        DataEncryptionKeyProperties properties = DataEncryptionKeyPropertiesSerializer.Read(Encoding.UTF8.GetBytes(json));

        Assert.Null(properties.EncryptionKeyWrapMetadata.Name);
        Assert.Null(properties.EncryptionKeyWrapMetadata.Algorithm);
        Assert.Null(properties.CreatedTime);
        Assert.Null(properties.ETag);
    }

    [Theory]
    [InlineData("encryptionAlgorithm")]
    [InlineData("wrappedDataEncryptionKey")]
    [InlineData("keyWrapMetadata")]
    public void Read_RequiredMemberMissing_ThrowsKeyUnavailableNamingTheDek(string member)
    {
        JsonObject document = JsonNode.Parse(MicrosoftDocument)!.AsObject();
        document.Remove(member);

        var error = Assert.Throws<EncryptionException>(() => DataEncryptionKeyPropertiesSerializer.Read(Encoding.UTF8.GetBytes(document.ToJsonString())));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Equal("dek1", error.DataEncryptionKeyId);
        Assert.Contains(member, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_IdMissing_NamesTheRequestedId()
    {
        JsonObject document = JsonNode.Parse(MicrosoftDocument)!.AsObject();
        document.Remove("id");

        var error = Assert.Throws<EncryptionException>(() => DataEncryptionKeyPropertiesSerializer.Read(Encoding.UTF8.GetBytes(document.ToJsonString()), "requested"));

        Assert.Equal("requested", error.DataEncryptionKeyId);
        Assert.Contains("\"id\"", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("type")]
    [InlineData("value")]
    public void Read_MetadataMemberMissing_ThrowsKeyUnavailable(string member)
    {
        JsonObject document = JsonNode.Parse(MicrosoftDocument)!.AsObject();
        document["keyWrapMetadata"]!.AsObject().Remove(member);

        var error = Assert.Throws<EncryptionException>(() => DataEncryptionKeyPropertiesSerializer.Read(Encoding.UTF8.GetBytes(document.ToJsonString())));

        Assert.Equal("dek1", error.DataEncryptionKeyId);
        Assert.Contains("keyWrapMetadata", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("wrappedDataEncryptionKey", "\"not base64!\"")]
    [InlineData("wrappedDataEncryptionKey", "\"\"")]
    [InlineData("wrappedDataEncryptionKey", "42")]
    [InlineData("createTime", "\"yesterday\"")]
    [InlineData("encryptionAlgorithm", "7")]
    [InlineData("keyWrapMetadata", "\"akv\"")]
    public void Read_MemberOfWrongType_ThrowsKeyUnavailable(string member, string value)
    {
        JsonObject document = JsonNode.Parse(MicrosoftDocument)!.AsObject();
        document[member] = JsonNode.Parse(value);

        var error = Assert.Throws<EncryptionException>(() => DataEncryptionKeyPropertiesSerializer.Read(Encoding.UTF8.GetBytes(document.ToJsonString())));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Equal("dek1", error.DataEncryptionKeyId);
    }

    [Theory]
    [InlineData("{\"id\":\"dek1\",")]
    [InlineData("[]")]
    [InlineData("{} {}")]
    [InlineData("")]
    public void Read_NotOneJsonObject_ThrowsKeyUnavailable(string json)
    {
        var error = Assert.Throws<EncryptionException>(() => DataEncryptionKeyPropertiesSerializer.Read(Encoding.UTF8.GetBytes(json), "dek1"));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
    }

    [Fact]
    public void ReadFeedPage_QueryResponse_ReadsEveryDocument()
    {
        string second = MicrosoftDocument.Replace("\"dek1\"", "\"dek2\"", StringComparison.Ordinal);
        string page = $"{{\"_rid\":\"x\",\"Documents\":[{MicrosoftDocument},{second}],\"_count\":2}}";

        List<DataEncryptionKeyProperties> documents = DataEncryptionKeyPropertiesSerializer.ReadFeedPage(Encoding.UTF8.GetBytes(page));

        Assert.Equal(["dek1", "dek2"], documents.Select(d => d.Id));
    }
}
