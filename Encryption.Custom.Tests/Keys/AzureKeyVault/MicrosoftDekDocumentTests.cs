using System.Security.Cryptography;
using Encryption.Custom.Keys;
using Encryption.Custom.AzureKeyVault;
using Encryption.Custom.Keys.Cosmos;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Encryption.Custom.Tests.Keys.TestSupport;

namespace Encryption.Custom.Tests.Keys.AzureKeyVault;

/// <summary>
/// DEK documents exactly as Microsoft.Azure.Cosmos.Encryption.Custom stores them, and the documents this library
/// stores read the way that package reads them. Its public metadata constructors give type <c>custom</c>, a name and
/// the key URL as given (often versionless), no algorithm; it wraps through Microsoft Data Encryption's Key Vault
/// provider (the signed envelope) and ignores type and algorithm when it unwraps.
/// </summary>
public sealed class MicrosoftDekDocumentTests : FakeKeyVaultTestBase
{
    private const string Mde = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    public static TheoryData<string, string?, bool> MetadataShapes => new()
    {
        { "custom", null, false },          // new EncryptionKeyWrapMetadata(name, keyUrl) with a versionless URL
        { "custom", null, true },           // ... with a versioned URL
        { "custom", "RSA_OAEP", false },    // the algorithm as Microsoft Data Encryption names it
        { "custom", "RSA-OAEP", true },     // ... and as Azure names it
        { "AZURE_KEY_VAULT", "RSA_OAEP", true },
        { "AZURE_KEY_VAULT", "RSA-OAEP", false },
    };

    [Theory]
    [MemberData(nameof(MetadataShapes))]
    public async Task FetchDataEncryptionKeyAsync_DocumentInMicrosoftsShape_Unwraps(string type, string? algorithm, bool versioned)
    {
        byte[] dek = RandomNumberGenerator.GetBytes(32);
        string keyUrl = versioned ? KeyId.AbsoluteUri : VersionlessKeyId.AbsoluteUri;
        var container = new FakeContainer("keys", "/id");
        container.Seed(MicrosoftDocument("theirs", type, algorithm, keyUrl, SignedEnvelopeBuilder.Build(Rsa, keyUrl, dek)));
        using CosmosDataEncryptionKeyProvider keys = NewKeys(container);

        DataEncryptionKey key = await keys.FetchDataEncryptionKeyAsync("theirs", Mde, Ct);

        Assert.Equal(dek, ((TestDataEncryptionKey)key).RawKey);
    }

    [Theory]
    [InlineData("AZURE_KEY_VAULT")]
    [InlineData("custom")]
    public async Task CreateDataEncryptionKeyAsync_SignedEnvelope_StoresADocumentMicrosoftsPackageReads(string type)
    {
        var container = new FakeContainer("keys", "/id");
        using CosmosDataEncryptionKeyProvider keys = NewKeys(container);
        EncryptionKeyWrapMetadata metadata = type == "custom"
            ? new EncryptionKeyWrapMetadata("myKek", VersionlessKeyId.AbsoluteUri)
            : SignedEnvelopeMetadata("myKek", VersionlessKeyId);

        await keys.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("ours", Mde, metadata, cancellationToken: Ct);
        byte[] ours = ((TestDataEncryptionKey)await keys.FetchDataEncryptionKeyAsync("ours", Mde, Ct)).RawKey;

        // The stored JSON, read the way Microsoft's package reads it, gives the same key; the metadata keeps the
        // caller's type and algorithm and names the exact version that wrapped.
        System.Text.Json.Nodes.JsonObject stored = container.GetDocument("ours")!;
        Assert.Equal(ours, SignedEnvelopeBuilder.ReadAsMicrosoftsPackage(stored, Vault.KeyFor));
        Assert.Equal(type, stored["keyWrapMetadata"]!["type"]!.GetValue<string>());
        Assert.Equal(KeyId.AbsoluteUri, stored["keyWrapMetadata"]!["value"]!.GetValue<string>());
        Assert.Equal("myKek", stored["keyWrapMetadata"]!["name"]!.GetValue<string>());
    }

    [Fact]
    public async Task FetchDataEncryptionKeyAsync_DekCreatedBeforeAKeyRotation_StillUnwrapsAfterIt()
    {
        var container = new FakeContainer("keys", "/id");
        using (CosmosDataEncryptionKeyProvider keys = NewKeys(container))
        {
            await keys.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek", Mde, SignedEnvelopeMetadata("myKek", VersionlessKeyId), cancellationToken: Ct);
        }

        byte[] before = await FetchWithNewProviderAsync(container, "dek");
        Vault.AddKey("kek", TestRsaKeys.Second()); // az keyvault key rotate
        byte[] after = await FetchWithNewProviderAsync(container, "dek");

        Assert.Equal(before, after);
        Assert.Equal(KeyId.AbsoluteUri, container.GetDocument("dek")!["keyWrapMetadata"]!["value"]!.GetValue<string>());
    }

    [Fact]
    public async Task RewrapDataEncryptionKeyAsync_VersionlessDekBeforeRotating_RepairsIt()
    {
        // A DEK Microsoft's package stored with a versionless key URL: it breaks at the next rotation for both
        // libraries (the signature is checked with the newest version). The documented repair: rewrap it first.
        byte[] dek = RandomNumberGenerator.GetBytes(32);
        var container = new FakeContainer("keys", "/id");
        container.Seed(MicrosoftDocument("theirs", "custom", null, VersionlessKeyId.AbsoluteUri, SignedEnvelopeBuilder.Build(Rsa, VersionlessKeyId.AbsoluteUri, dek)));
        using (CosmosDataEncryptionKeyProvider keys = NewKeys(container))
        {
            await keys.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync("theirs", new EncryptionKeyWrapMetadata("myKek", VersionlessKeyId.AbsoluteUri), cancellationToken: Ct);
        }

        Vault.AddKey("kek", TestRsaKeys.Second());

        Assert.Equal(dek, await FetchWithNewProviderAsync(container, "theirs"));
        Assert.Equal(dek, SignedEnvelopeBuilder.ReadAsMicrosoftsPackage(container.GetDocument("theirs")!, Vault.KeyFor));
    }

    [Theory]
    [InlineData("")]
    [InlineData("   ")]
    [InlineData(null)]
    public async Task WrapKeyAsync_SignedEnvelopeWithoutAKeyName_IsRefusedBeforeAnyRequest(string? name)
    {
        AzureKeyVaultKeyWrapProvider provider = CreateProvider();

        await Assert.ThrowsAsync<ArgumentException>(() => provider.WrapKeyAsync(new byte[32], new EncryptionKeyWrapMetadata(name, KeyId.AbsoluteUri), Ct));
        Assert.ThrowsAny<ArgumentException>(() => AzureKeyVaultKeyWrapProvider.CreateSignedEnvelopeMetadata(name!, KeyId));
        Assert.Empty(Vault.Requests);
    }

    [Fact]
    public async Task UnwrapKeyAsync_CustomMetadataThatIsNotAKeyVaultKey_ThrowsArgumentException()
    {
        AzureKeyVaultKeyWrapProvider provider = CreateProvider();

        await Assert.ThrowsAsync<ArgumentException>(() => provider.UnwrapKeyAsync(new byte[600], new EncryptionKeyWrapMetadata("kek", "my-own-key-store:kek"), Ct));
        await Assert.ThrowsAsync<ArgumentException>(() => provider.UnwrapKeyAsync(new byte[600], new EncryptionKeyWrapMetadata("custom", "kek", KeyId.AbsoluteUri, "RSA-OAEP-256"), Ct));
        Assert.Empty(Vault.Requests);
    }

    /// <summary>The document Microsoft's package stores: Newtonsoft's member order, nulls omitted, Cosmos's system properties.</summary>
    internal static string MicrosoftDocument(string id, string type, string? algorithm, string keyUrl, byte[] wrapped) =>
        $"{{\"id\":\"{id}\",\"encryptionAlgorithm\":\"{Mde}\",\"wrappedDataEncryptionKey\":\"{Convert.ToBase64String(wrapped)}\"," +
        $"\"keyWrapMetadata\":{{\"type\":\"{type}\"{(algorithm is null ? string.Empty : $",\"algorithm\":\"{algorithm}\"")},\"name\":\"myKek\",\"value\":\"{keyUrl}\"}}," +
        "\"createTime\":1700000000,\"_rid\":\"AAAAAA==\",\"_self\":\"dbs/a/colls/b/docs/c/\",\"_etag\":\"\\\"0700-0000\\\"\",\"_attachments\":\"attachments/\",\"_ts\":1700000001}";

    private Uri VersionlessKeyId => new(Vault.VaultUri, "keys/kek");

    private AzureKeyVaultKeyWrapProvider CreateProvider() => AzureKeyVaultKeyWrapProviderTests.CreateProvider(Vault, Credential);

    private CosmosDataEncryptionKeyProvider NewKeys(FakeContainer container)
    {
        var keys = new CosmosDataEncryptionKeyProvider(CreateProvider(), new CosmosDataEncryptionKeyProviderOptions(), new TestKeyFactory());
        keys.Initialize(container);
        return keys;
    }

    private async Task<byte[]> FetchWithNewProviderAsync(FakeContainer container, string id)
    {
        using CosmosDataEncryptionKeyProvider keys = NewKeys(container);
        return ((TestDataEncryptionKey)await keys.FetchDataEncryptionKeyAsync(id, Mde, Ct)).RawKey;
    }
}
