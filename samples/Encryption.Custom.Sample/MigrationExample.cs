using Encryption.Custom;
using Microsoft.Azure.Cosmos;

namespace EncryptionSample;

/// <summary>
/// docs/migrating.md "After": code written for Microsoft.Azure.Cosmos.Encryption.Custom, moved to this library by
/// changing its namespace (the block there is this method's body, and a test checks that it appears here line
/// for line). eng/run.sh runs it and checks that every read returns the written order.
/// </summary>
internal static class MigrationExample
{
    /// <summary>Creates a DEK, writes <paramref name="order"/> encrypted, and reads it back three ways.</summary>
    public static async Task<IReadOnlyList<Order>> WriteAndReadAsync(
        Database database, EncryptionKeyWrapProvider keyWrapProvider, string keyEncryptionKeyUrl, Order order)
    {
        await using var dekProvider = new CosmosDataEncryptionKeyProvider(keyWrapProvider);
        await dekProvider.InitializeAsync(database, "keys");
        await dekProvider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(
            "orders-dek",
            CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized,
            new Encryption.Custom.EncryptionKeyWrapMetadata("orders-kek", keyEncryptionKeyUrl));
        Container orders = database.GetContainer("orders").WithEncryptor(new CosmosEncryptor(dekProvider));

        var options = new EncryptionItemRequestOptions
        {
            EncryptionOptions = new EncryptionOptions
            {
                DataEncryptionKeyId = "orders-dek",
                EncryptionAlgorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized,
                PathsToEncrypt = new HashSet<string> { "/cardNumber", "/address" },
            },
        };
        ItemResponse<EncryptableItem<Order>> created = await orders.CreateItemAsync(
            new EncryptableItem<Order>(order), new PartitionKey(order.Tenant), options);
        (Order written, DecryptionContext? context) = await created.Resource.DecryptableItem.GetItemAsync<Order>();

        ItemResponse<DecryptableItem> read = await orders.ReadItemAsync<DecryptableItem>(order.Id, new PartitionKey(order.Tenant));
        await using DecryptableItem item = read.Resource;
        (Order pointRead, _) = await item.GetItemAsync<Order>();

        var queried = new List<Order>();
        using FeedIterator<DecryptableItem> query = orders.GetItemQueryIterator<DecryptableItem>("SELECT * FROM c");
        while (query.HasMoreResults)
        {
            foreach (DecryptableItem result in await query.ReadNextAsync())
            {
                try
                {
                    (Order each, _) = await result.GetItemAsync<Order>();
                    queried.Add(each);
                }
                catch (EncryptionException exception)
                {
                    Console.WriteLine($"Cannot decrypt with DEK '{exception.DataEncryptionKeyId}': {exception.Message}");
                }
            }
        }

        Console.WriteLine($"Decrypted {string.Join(", ", context!.DecryptionInfoList[0].PathsDecrypted)} with '{context.DecryptionInfoList[0].DataEncryptionKeyId}'.");
        return [written, pointRead, .. queried];
    }
}
