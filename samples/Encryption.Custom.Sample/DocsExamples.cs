using Azure.Identity;
using Encryption.Custom;
using Encryption.Custom.AzureKeyVault;
using Microsoft.Azure.Cosmos;

namespace EncryptionSample;

/// <summary>
/// The C# blocks of docs/key-management.md and docs/container.md, compiled here so they stay true (a test checks
/// that every C# block under docs/ appears in a file of the sample line for line). eng/run.sh runs
/// <see cref="LocalKeysAsync"/>; the others need a Key Vault key or an existing account and are compiled only.
/// </summary>
internal static class DocsExamples
{
    /// <summary>docs/key-management.md "Wire it up" (Key Vault).</summary>
    public static async Task<CosmosEncryptor> KeyVaultAsync(CosmosClient cosmosClient)
    {
        var keyVaultOptions = new AzureKeyVaultKeyWrapProviderOptions();
        keyVaultOptions.AllowedKeys.Add(new Uri("https://my-vault.vault.azure.net/keys/cosmos-kek")); // every version of this key
        var keyVault = new AzureKeyVaultKeyWrapProvider(new DefaultAzureCredential(), keyVaultOptions);
        var keys = new CosmosDataEncryptionKeyProvider(keyVault);          // dispose it at shutdown: cached keys are wiped
        await keys.InitializeAsync(cosmosClient.GetDatabase("app"), "keys"); // creates the container (partition key /id)

        // Once per DEK (for example from a deployment script):
        await keys.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(
            "customers-dek",
            CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized,
            AzureKeyVaultKeyWrapProvider.CreateMetadata(new Uri("https://my-vault.vault.azure.net/keys/cosmos-kek")));

        var encryptor = new CosmosEncryptor(keys);   // hand this to container.WithEncryptor(...)
        return encryptor;
    }

    /// <summary>
    /// docs/key-management.md "Local keys for development and tests", run as written: in a folder of its own
    /// holding the key files the block names.
    /// </summary>
    public static async Task<DataEncryptionKeyProperties> LocalKeysAsync(Database database, byte[] aesKeyBytes, string workingDirectory)
    {
        string previous = Environment.CurrentDirectory;
        Environment.CurrentDirectory = workingDirectory;
        try
        {
            using var local = new LocalKeyWrapProvider();
            local.AddRsaPemFile("dev-kek", "secrets/dev-kek.pem");   // RSA-OAEP / RSA-OAEP-256
            local.AddJsonWebKeyFile("dev-jwk", "secrets/dev-kek.jwk"); // {"kty":"RSA",...} or {"kty":"oct","k":"..."}
            local.AddAesKey("dev-aes", aesKeyBytes);                  // AES-KW (RFC 3394) / AES-KWP (RFC 5649)

            using var keys = new CosmosDataEncryptionKeyProvider(local);
            await keys.InitializeAsync(database, "keys");             // before any other use of the provider
            await keys.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(
                "dev-dek", CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized,
                LocalKeyWrapProvider.CreateMetadata("dev-kek", KeyWrapAlgorithm.RsaOaep256));

            return (await keys.DataEncryptionKeyContainer.ReadDataEncryptionKeyAsync("dev-dek")).Resource;
        }
        finally
        {
            Environment.CurrentDirectory = previous;
        }
    }

    /// <summary>docs/key-management.md "Rotating the key-encryption key": rewrap every DEK the old KEK wraps.</summary>
    public static async Task RewrapAsync(CosmosDataEncryptionKeyProvider keys, string oldKeyIdWithVersion, Uri newKeyId)
    {
        var query = new QueryDefinition("SELECT * FROM c WHERE c.keyWrapMetadata[\"value\"] = @old")
            .WithParameter("@old", oldKeyIdWithVersion);
        using FeedIterator<DataEncryptionKeyProperties> dek = keys.DataEncryptionKeyContainer.GetDataEncryptionKeyQueryIterator(query);
        while (dek.HasMoreResults)
        {
            foreach (DataEncryptionKeyProperties p in await dek.ReadNextAsync())
            {
                await keys.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync(p.Id, AzureKeyVaultKeyWrapProvider.CreateMetadata(newKeyId));
            }
        }
    }

    /// <summary>docs/key-management.md: rewrap DEKs stored with a versionless key id to the same key (adds the version).</summary>
    public static async Task RepairVersionlessAsync(CosmosDataEncryptionKeyProvider keys)
    {
        var query = new QueryDefinition("SELECT * FROM c WHERE c.keyWrapMetadata[\"value\"] = @versionless")
            .WithParameter("@versionless", "https://my-vault.vault.azure.net/keys/cosmos-kek");
        using FeedIterator<DataEncryptionKeyProperties> dek = keys.DataEncryptionKeyContainer.GetDataEncryptionKeyQueryIterator(query);
        while (dek.HasMoreResults)
        {
            foreach (DataEncryptionKeyProperties p in await dek.ReadNextAsync())
            {
                await keys.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync(p.Id, p.EncryptionKeyWrapMetadata);
            }
        }
    }

    /// <summary>docs/container.md "Public surface": wrap, write encrypted, read and query decrypted.</summary>
    public static async Task<(Customer Read, FeedIterator<Customer> Query)> ContainerAsync(
        CosmosClient client, CosmosDataEncryptionKeyProvider keys, Customer customer, string id, string tenant)
    {
        Container container = client.GetContainer("app", "customers").WithEncryptor(new CosmosEncryptor(keys));
        var encrypt = new EncryptionItemRequestOptions
        {
            EncryptionOptions = new() { DataEncryptionKeyId = "customers-dek", PathsToEncrypt = ["/ssn", "/address"] },
        };
        await container.CreateItemAsync(customer, new PartitionKey(customer.Tenant), encrypt);
        Customer read = (await container.ReadItemAsync<Customer>(id, new PartitionKey(tenant))).Resource;   // decrypted
        FeedIterator<Customer> query = container.GetItemQueryIterator<Customer>("SELECT * FROM c");          // pages decrypted
        return (read, query);
    }

    /// <summary>docs/policy.md "The model": a container that encrypts by policy and refuses plaintext.</summary>
    public static Container Policy(Container container, Encryptor encryptor)
    {
        var policy = new ContainerEncryptionPolicy("customers-dek", ["/ssn", "/creditCard"]);
        Container customers = container.WithEncryptor(encryptor, new() { Policy = policy });
        return customers;
    }
}
