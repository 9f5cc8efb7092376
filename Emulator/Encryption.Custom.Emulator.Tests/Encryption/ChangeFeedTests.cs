using Encryption.Custom.Cosmos;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>Change feed iterators through an encryption container.</summary>
[SdkSmoke]
public sealed class ChangeFeedTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private async Task<(Container Raw, Container Encrypted, List<SecretDocument> Documents)> SeedAsync(int count = 5)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        var documents = new List<SecretDocument>();
        for (int i = 0; i < count; i++)
        {
            SecretDocument document = SecretDocument.Create($"p{i % 2}", $"Name{i}") with { Ssn = $"ssn-{i}" };
            await container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, SecretDocument.SecretPaths), Ct);
            documents.Add(document);
        }

        return (raw, container, documents);
    }

    [Fact]
    public async Task ChangeFeedIterator_Typed_FromBeginning_ReturnsDecryptedDocuments()
    {
        (_, Container container, List<SecretDocument> documents) = await SeedAsync();

        (IReadOnlyList<FeedResponse<SecretDocument>> pages, _) = await container
            .GetChangeFeedIterator<SecretDocument>(ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion, new ChangeFeedRequestOptions { PageSizeHint = 2 })
            .ReadChangesAsync(Ct);

        List<SecretDocument> changes = [.. pages.SelectMany(p => p)];
        Assert.Equal(documents.Count, changes.Count);
        foreach (SecretDocument document in documents)
        {
            Assert.True(document.ValueEquals(changes.Single(c => c.Id == document.Id)));
        }
    }

    [Fact]
    public async Task ChangeFeedIterator_FromContinuation_ReturnsOnlyLaterChangesDecrypted()
    {
        (_, Container container, _) = await SeedAsync(2);
        (_, string continuation) = await container
            .GetChangeFeedIterator<SecretDocument>(ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion)
            .ReadChangesAsync(Ct);
        SecretDocument later = SecretDocument.Create() with { Ssn = "later" };
        await container.CreateItemAsync(later, later.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek2, SecretDocument.SecretPaths), Ct);

        (IReadOnlyList<FeedResponse<SecretDocument>> pages, _) = await container
            .GetChangeFeedIterator<SecretDocument>(ChangeFeedStartFrom.ContinuationToken(continuation), ChangeFeedMode.LatestVersion)
            .ReadChangesAsync(Ct);

        SecretDocument change = Assert.Single(pages.SelectMany(p => p));
        Assert.True(later.ValueEquals(change));
    }

    [Fact]
    public async Task ChangeFeedStreamIterator_ReturnsDecryptedPagesAndNotModifiedAtTheEnd()
    {
        (_, Container container, List<SecretDocument> documents) = await SeedAsync(3);
        using FeedIterator iterator = container.GetChangeFeedStreamIterator(ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion);
        var seen = new List<JObject>();

        while (true)
        {
            using ResponseMessage page = await iterator.ReadNextAsync(Ct);
            if (page.StatusCode == HttpStatusCode.NotModified)
            {
                break;
            }

            Assert.Equal(HttpStatusCode.OK, page.StatusCode);
            seen.AddRange((await PointOperationTests.ReadJsonAsync(page.Content))["Documents"]!.Children<JObject>());
        }

        Assert.Equal(documents.Select(d => d.Ssn).Order(), seen.Select(d => (string)d["ssn"]!).Order());
        Assert.All(seen, d => Assert.Null(d["_ei"]));
    }

    [Fact]
    public async Task ChangeFeedIterator_DecryptableItems_DecryptEachDocument()
    {
        (Container raw, Container container, List<SecretDocument> documents) = await SeedAsync(3);
        await QueryTests.TamperAsync(raw, documents[0], "address");

        (IReadOnlyList<FeedResponse<DecryptableItem>> pages, _) = await container
            .GetChangeFeedIterator<DecryptableItem>(ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion)
            .ReadChangesAsync(Ct);

        int decrypted = 0;
        int failed = 0;
        foreach (DecryptableItem item in pages.SelectMany(p => p))
        {
            try
            {
                (SecretDocument document, _) = await item.GetItemAsync<SecretDocument>(Ct);
                Assert.True(documents.Single(d => d.Id == document.Id).ValueEquals(document));
                decrypted++;
            }
            catch (EncryptionException exception)
            {
                Assert.Equal("/address", exception.Path);
                failed++;
            }
        }

        Assert.Equal((2, 1), (decrypted, failed));
    }

    [Fact]
    public void ChangeFeed_AllVersionsAndDeletes_IsNotSupported()
    {
        Container container = fixture.Client.GetContainer(fixture.Database.Id, "any").WithEncryptor(fixture.Encryptor);

        Assert.Throws<NotSupportedException>(() => container.GetChangeFeedStreamIterator(ChangeFeedStartFrom.Now(), ChangeFeedMode.AllVersionsAndDeletes));
    }
}
