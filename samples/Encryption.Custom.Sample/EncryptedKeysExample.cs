using Encryption.Custom;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace EncryptionSample;

/// <summary>
/// docs/container.md "Encrypted ids and partition keys": a container keyed by the customer's e-mail address, which is
/// also the id, both encrypted deterministically. The application reads, patches and queries by the plaintext
/// address; the service stores only ciphertext.
/// </summary>
internal static class EncryptedKeysExample
{
    /// <summary>docs/container.md: the id and the partition key path deterministic, the SSN randomized.</summary>
    public static Container Accounts(Container raw, Encryptor encryptor)
    {
        var policy = new ContainerEncryptionPolicy("accounts-dek",
        [
            new EncryptionPolicyIncludedPath("/id") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/email") { EncryptionType = PathEncryptionType.Deterministic }, // the partition key path
            new EncryptionPolicyIncludedPath("/ssn"),
        ]);
        Container accounts = raw.WithEncryptor(encryptor, new EncryptionContainerOptions { Policy = policy });
        return accounts;
    }

    public sealed record Account(
        [property: JsonProperty("id")] string Id,
        [property: JsonProperty("email")] string Email,
        [property: JsonProperty("ssn")] string Ssn,
        [property: JsonProperty("plan")] string Plan);

    public static async Task<bool> RunAsync(Database database)
    {
        Output.Step("Encrypted id and partition key: a container keyed by an encrypted e-mail address");
        using LocalKeys keys = await LocalKeys.CreateAsync(database, "accounts-dek");
        Container raw = (await database.CreateContainerAsync("accounts", "/email")).Container;
        Container accounts = Accounts(raw, keys.Encryptor);

        var ada = new Account("ada@example.com", "ada@example.com", "078-05-1120", "basic");
        await accounts.CreateItemAsync(ada, new PartitionKey(ada.Email));
        Account read = (await accounts.ReadItemAsync<Account>("ada@example.com", new PartitionKey("ada@example.com"))).Resource; // the application's own id and key
        Account patched = (await accounts.PatchItemAsync<Account>("ada@example.com", new PartitionKey("ada@example.com"), [PatchOperation.Set("/plan", "premium")])).Resource;
        var query = new QueryDefinition("SELECT * FROM c WHERE c.id = @id").WithParameter("@id", "ada@example.com");
        using FeedIterator<Account> results = accounts.GetItemQueryIterator<Account>(query);
        List<Account> found = [.. await results.ReadNextAsync()];

        using FeedIterator<JObject> storedRows = raw.GetItemQueryIterator<JObject>("SELECT * FROM c");
        JObject stored = (await storedRows.ReadNextAsync()).Single();
        Output.Line($"stored id: {stored["id"]}");
        Output.Line($"stored email (partition key): {stored["email"]}");
        Output.Line($"read (encryption container): {read}");

        return Output.Check(read == ada, "a point read by the plaintext address finds the account")
            & Output.Check(patched.Plan == "premium" && patched.Email == ada.Email, "a patch by the plaintext address applies")
            & Output.Check(found.Count == 1 && found[0].Id == ada.Id, "a query on c.id by the plaintext address finds it")
            & Output.Check(!stored.ToString(Formatting.None).Contains("example.com", StringComparison.Ordinal), "the service stores neither the id nor the partition key in plaintext");
    }
}
