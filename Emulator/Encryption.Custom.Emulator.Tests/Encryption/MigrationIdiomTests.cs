using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>
/// Code written for Microsoft's package, end to end (docs/migrating.md): <see cref="EncryptableItem{T}"/> writes,
/// <see cref="DecryptableItem"/> point reads and queries disposed with <c>await using</c>, and paths in a
/// <see cref="HashSet{T}"/>.
/// </summary>
public sealed class MigrationIdiomTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task EncryptableItemWrite_ThenDecryptableReads_RoundTripTheDocument()
    {
        (Container raw, Container container) = await fixture.GetSharedContainerAsync(Ct);
        SecretDocument document = SecretDocument.Create();
        var options = new EncryptionItemRequestOptions
        {
            EncryptionOptions = new EncryptionOptions
            {
                DataEncryptionKeyId = EncryptionFixture.Dek1,
                EncryptionAlgorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized,
                PathsToEncrypt = new HashSet<string>(SecretDocument.SecretPaths),
            },
        };

        ItemResponse<EncryptableItem<SecretDocument>> created = await container.CreateItemAsync(new EncryptableItem<SecretDocument>(document), document.PartitionKey, options, Ct);
        (SecretDocument written, DecryptionContext? context) = await created.Resource.DecryptableItem.GetItemAsync<SecretDocument>(Ct);
        ItemResponse<DecryptableItem> read = await container.ReadItemAsync<DecryptableItem>(document.Id, document.PartitionKey, cancellationToken: Ct);
        await using DecryptableItem item = read.Resource;
        (SecretDocument pointRead, _) = await item.GetItemAsync<SecretDocument>(Ct);
        var queried = new List<SecretDocument>();
        using FeedIterator<DecryptableItem> query = container.GetItemQueryIterator<DecryptableItem>(
            new QueryDefinition("SELECT * FROM c WHERE c.id = @id").WithParameter("@id", document.Id));
        while (query.HasMoreResults)
        {
            foreach (DecryptableItem result in await query.ReadNextAsync(Ct))
            {
                await using (result)
                {
                    queried.Add((await result.GetItemAsync<SecretDocument>(Ct)).Item);
                }
            }
        }

        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        Assert.True(document.ValueEquals(written));
        Assert.True(document.ValueEquals(pointRead));
        Assert.True(document.ValueEquals(Assert.Single(queried)));
        Assert.Equal(EncryptionFixture.Dek1, Assert.Single(context!.DecryptionInfoList).DataEncryptionKeyId);
        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.NotEqual(document.Ssn, (string?)stored["ssn"]);
        Assert.NotNull(stored["_ei"]);
    }
}
