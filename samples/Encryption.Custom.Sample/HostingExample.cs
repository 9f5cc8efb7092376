using Azure.Identity;
using Encryption.Custom;
using Encryption.Custom.AzureKeyVault;
using Microsoft.Azure.Cosmos;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace EncryptionSample;

/// <summary>
/// The code blocks of docs/hosting.md, compiled here (a test checks that every block appears in this file line for line):
/// a generic host with Cosmos encryption registered from configuration, a keyed encrypted container, and the health
/// check. eng/run.sh runs it with a local key-encryption key, or with the Key Vault key in AZURE_KEY_VAULT_KEY_ID.
/// </summary>
internal static class HostingExample
{
    /// <summary>docs/hosting.md "Register": the configuration section names the DEK container and the DEKs to warm.</summary>
    public static IHost Build(CosmosClient client, string databaseId, IDictionary<string, string?> settings, byte[]? developmentKek)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Services.AddSingleton(client);    // the application's CosmosClient, registered as usual

        CosmosEncryptionBuilder encryption = builder.Services.AddCosmosEncryption(builder.Configuration.GetSection("CosmosEncryption"));
        if (developmentKek is null)
        {
            encryption.UseAzureKeyVaultKeyWrapProvider(new DefaultAzureCredential());
        }
        else
        {
            encryption.UseLocalKeyWrapProvider((services, keys) => keys.AddAesKey("dev-kek", developmentKek));
        }

        encryption.AddEncryptedContainer("customers", databaseId, "customers");
        builder.Services.AddHealthChecks().AddCosmosEncryptionKeys();
        builder.Services.AddSingleton<CustomerStore>();
        builder.Configuration.AddInMemoryCollection(settings);    // the sample's stand-in for appsettings.json
        return builder.Build();
    }

    /// <summary>
    /// docs/hosting.md "Creating DEKs at start": the DEK and its key-encryption key named on the builder. Compiled only
    /// (eng/run.sh provisions its DEK itself, and the Key Vault key here is an example).
    /// </summary>
    public static void CreateKeysAtStart(CosmosEncryptionBuilder encryption)
    {
        encryption.UseAzureKeyVaultKeyWrapProvider(new DefaultAzureCredential())
            .CreateDataEncryptionKeyIfNotExists(
                "customers-dek",
                AzureKeyVaultKeyWrapProvider.CreateMetadata(new Uri("https://contoso.vault.azure.net/keys/kek1")));
        // local keys: LocalKeyWrapProvider.CreateMetadata("dev-kek", KeyWrapAlgorithm.AesKeyWrap)
    }
}

/// <summary>docs/hosting.md "Use": an application service that receives the encrypted container by its name.</summary>
internal sealed class CustomerStore([FromKeyedServices("customers")] Container customers)
{
    private static readonly EncryptionItemRequestOptions s_encrypt = new()
    {
        EncryptionOptions = new() { DataEncryptionKeyId = "customers-dek", PathsToEncrypt = ["/ssn", "/creditCard"] },
    };

    public async Task AddAsync(Customer customer) =>
        await customers.CreateItemAsync(customer, new PartitionKey(customer.Tenant), s_encrypt);

    public async Task<Customer> GetAsync(string id, string tenant) =>
        (await customers.ReadItemAsync<Customer>(id, new PartitionKey(tenant))).Resource;
}
