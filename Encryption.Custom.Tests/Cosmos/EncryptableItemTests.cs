using Encryption.Custom.Tests.Cosmos.TestSupport;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Tests.Cosmos;

/// <summary>Microsoft's idiom: write an <see cref="EncryptableItem"/>, read the written document back through its <see cref="DecryptableItem"/>.</summary>
public sealed class EncryptableItemTests : IDisposable
{
    private readonly EncryptionSetup _setup = new();

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public void Dispose() => _setup.Dispose();

    [Fact]
    public async Task CreateItemAsync_EncryptableItem_SendsCiphertextAndAnswersADecryptableItem()
    {
        var item = new EncryptableItem<JObject>(JObject.Parse("""{"id":"e","pk":"p0","ssn":"secret"}"""));

        ItemResponse<EncryptableItem<JObject>> response = await _setup.Container.CreateItemAsync(item, EncryptionSetup.P0, EncryptionSetup.Encrypt(EncryptionSetup.Dek1, "/ssn"), Ct);
        await using DecryptableItem written = response.Resource.DecryptableItem;
        (JObject read, DecryptionContext? context) = await written.GetItemAsync<JObject>(Ct);

        Assert.Same(item, response.Resource);
        Assert.NotEqual("secret", (string?)Assert.Single(_setup.Inner.ReceivedBodies)["ssn"]);
        Assert.Equal("secret", (string?)read["ssn"]);
        DecryptionInfo info = Assert.Single(context!.DecryptionInfoList);
        Assert.Equal(EncryptionSetup.Dek1, info.DataEncryptionKeyId);
        Assert.Equal(["/ssn"], info.PathsDecrypted);
    }

    [Fact]
    public async Task UpsertItemAsync_EncryptableItemStream_ReadsTheStreamAndLeavesItOpen()
    {
        using var item = new EncryptableItemStream(EncryptionSetup.ToStream("""{"id":"s","pk":"p0","ssn":"secret"}"""));

        ItemResponse<EncryptableItemStream> response = await _setup.Container.UpsertItemAsync(item, EncryptionSetup.P0, EncryptionSetup.Encrypt(EncryptionSetup.Dek1, "/ssn"), Ct);
        (JObject read, _) = await response.Resource.DecryptableItem.GetItemAsync<JObject>(Ct);

        Assert.Equal("secret", (string?)read["ssn"]);
        Assert.True(item.StreamPayload.CanRead);
    }

    [Fact]
    public async Task CreateItemAsync_EncryptableItemWithoutEncryptionOptions_WritesThePlainItem()
    {
        var item = new EncryptableItem<JObject>(JObject.Parse("""{"id":"p","pk":"p0","ssn":"plain"}"""));

        ItemResponse<EncryptableItem<JObject>> response = await _setup.Container.CreateItemAsync(item, EncryptionSetup.P0, cancellationToken: Ct);
        (JObject read, DecryptionContext? context) = await response.Resource.DecryptableItem.GetItemAsync<JObject>(Ct);

        JObject sent = Assert.Single(_setup.Inner.ReceivedBodies);
        Assert.Equal(["id", "pk", "ssn"], sent.Properties().Select(p => p.Name));
        Assert.Equal("plain", (string?)read["ssn"]);
        Assert.Null(context);
    }

    [Fact]
    public void DecryptableItem_BeforeAnyWrite_ThrowsInvalidOperation()
    {
        var item = new EncryptableItem<JObject>(new JObject());

        Assert.Throws<InvalidOperationException>(() => item.DecryptableItem);
        Assert.Throws<ArgumentNullException>(() => new EncryptableItem<JObject>(null!));
        Assert.Throws<ArgumentNullException>(() => new EncryptableItemStream(null!));
    }

    [Fact]
    public async Task DecryptableItem_AfterDisposeAsync_StillDecrypts()
    {
        await _setup.CreateEncryptedAsync("""{"id":"r","pk":"p0","ssn":"secret"}""", EncryptionSetup.Dek1, "/ssn");
        ItemResponse<DecryptableItem> response = await _setup.Container.ReadItemAsync<DecryptableItem>("r", EncryptionSetup.P0, cancellationToken: Ct);

        await response.Resource.DisposeAsync();
        (JObject read, _) = await response.Resource.GetItemAsync<JObject>(Ct);

        Assert.Equal("secret", (string?)read["ssn"]);
    }
}
