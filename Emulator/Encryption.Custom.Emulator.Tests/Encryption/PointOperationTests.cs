using Encryption.Custom.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>Typed and stream point operations through an encryption container, end to end.</summary>
public sealed class PointOperationTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task CreateItem_WithEncryptionOptions_StoresCiphertextAndReadsBackPlaintext()
    {
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);
        SecretDocument document = SecretDocument.Create();

        ItemResponse<SecretDocument> created = await container.CreateItemAsync(
            document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, SecretDocument.SecretPaths), Ct);

        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        Assert.True(document.ValueEquals(created.Resource));
        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.Equal(document.Name, (string?)stored["name"]);
        Assert.Equal(JTokenType.String, stored["ssn"]!.Type);
        Assert.NotEqual(document.Ssn, (string?)stored["ssn"]);
        Assert.Equal(JTokenType.String, stored["salary"]!.Type);
        Assert.Equal(EncryptionFixture.Dek1, (string?)stored["_ei"]!["_en"]);
        Assert.Equal(["/ssn", "/salary", "/rating", "/active", "/address", "/tags"], stored["_ei"]!["_ep"]!.Values<string>());
        ItemResponse<SecretDocument> read = await container.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.True(document.ValueEquals(read.Resource));
        Assert.Equal(created.ETag, read.ETag);
    }
}
