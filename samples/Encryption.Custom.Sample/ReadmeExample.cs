using Azure.Identity;
using Encryption.Custom;
using Encryption.Custom.AzureKeyVault;
using Microsoft.Azure.Cosmos;

namespace EncryptionSample;

/// <summary>
/// The code blocks of README.md, the package README and docs/getting-started.md, compiled here so they stay true (a test checks that every
/// block appears in this file line for line). eng/run.sh runs <see cref="WriteAndReadAsync"/> with <see cref="LocalKey"/>, or
/// with <see cref="KeyVault"/> when AZURE_KEY_VAULT_KEY_ID names a Key Vault key.
/// </summary>
internal static class ReadmeExample
{
    /// <summary>README "Key-encryption key in Azure Key Vault": the identity needs wrapKey and unwrapKey on the key.</summary>
    public static (EncryptionKeyWrapProvider Provider, Encryption.Custom.EncryptionKeyWrapMetadata Kek) KeyVault(string keyVaultKeyId)
    {
        var keyWrapProvider = new AzureKeyVaultKeyWrapProvider(new DefaultAzureCredential());
        var kek = AzureKeyVaultKeyWrapProvider.CreateMetadata(new Uri(keyVaultKeyId));
        return (keyWrapProvider, kek);
    }

    /// <summary>docs/getting-started.md "A local key for development": an AES key-encryption key held in memory.</summary>
    public static (EncryptionKeyWrapProvider Provider, Encryption.Custom.EncryptionKeyWrapMetadata Kek) LocalKey(byte[] developmentKek)
    {
        var keyWrapProvider = new LocalKeyWrapProvider();
        keyWrapProvider.AddAesKey("dev-kek", developmentKek);    // 32 bytes from a secret store or a file outside the repository
        var kek = LocalKeyWrapProvider.CreateMetadata("dev-kek", KeyWrapAlgorithm.AesKeyWrap);
        return (keyWrapProvider, kek);
    }

    /// <summary>README "Encrypt and read": one DEK, a container encryption policy, one write encrypted by it, one decrypted read.</summary>
    public static async Task<Customer> WriteAndReadAsync(
        Database database, EncryptionKeyWrapProvider keyWrapProvider, Encryption.Custom.EncryptionKeyWrapMetadata kek, Customer customer)
    {
        using var keys = new CosmosDataEncryptionKeyProvider(keyWrapProvider);
        await keys.InitializeAsync(database, "keys");    // wrapped DEKs live in this container (created if missing)
        await keys.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(
            "customers-dek", CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, kek);    // once per DEK
        var policy = new ContainerEncryptionPolicy("customers-dek", ["/ssn", "/creditCard"]);    // plaintext there is refused
        Container customers = database.GetContainer("customers").WithEncryptor(new CosmosEncryptor(keys), new() { Policy = policy });

        await customers.CreateItemAsync(customer, new PartitionKey(customer.Tenant));    // ssn, creditCard: ciphertext
        Customer read = (await customers.ReadItemAsync<Customer>(customer.Id, new PartitionKey(customer.Tenant))).Resource;
        return read;
    }
}
