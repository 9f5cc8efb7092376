using System.Security.Cryptography;
using Azure.Identity;
using Encryption.Custom;
using Encryption.Custom.AzureKeyVault;
using Microsoft.Azure.Cosmos;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Newtonsoft.Json.Linq;

namespace EncryptionSample;

/// <summary>
/// Client-side encryption end to end: a data encryption key (DEK) wrapped by a local key-encryption key (KEK),
/// encrypted writes, what the service stores beside what the application reads, a query, the change feed, a KEK
/// rotation (rewrap), reads with only the new KEK, the README's example: a container encryption policy, which
/// also refuses a document another writer stored in plaintext, docs/queries.md: lookups by an encrypted SSN, and nested selectors with binding (an address's street and city,
/// every card's number). Exits 0 when everything read back is what was written.
/// </summary>
internal static class Program
{
    private const string DekId = "customers-dek";

    public static async Task<int> Main()
    {
        try
        {
            return await RunAsync() ? 0 : 1;
        }
        catch (Exception exception) when (exception is CosmosException or EncryptionException or InvalidOperationException or HttpRequestException)
        {
            await System.Console.Error.WriteLineAsync($"The sample failed: {exception.GetType().Name}: {exception.Message}");
            return 1;
        }
    }

    private static async Task<bool> RunAsync()
    {
        using CosmosClient client = SampleEndpoint.CreateClient();
        bool ok = await InNewDatabaseAsync(client, "encryption-sample-", RunInDatabaseAsync)
            & await InNewDatabaseAsync(client, "encryption-readme-", RunReadmeExampleAsync)
            & await InNewDatabaseAsync(client, "encryption-hosting-", database => RunHostingExampleAsync(client, database))
            & await InNewDatabaseAsync(client, "encryption-migration-", RunMigrationExampleAsync)
            & await InNewDatabaseAsync(client, "encryption-migration-job-", MigrationJobExample.RunAsync)
            & await InNewDatabaseAsync(client, "encryption-local-keys-", RunLocalKeysExampleAsync)
            & await InNewDatabaseAsync(client, "encryption-queries-", RunQueriesExampleAsync)
            & await InNewDatabaseAsync(client, "encryption-nested-", NestedSelectorsExample.RunAsync)
            & await InNewDatabaseAsync(client, "encryption-keys-", EncryptedKeysExample.RunAsync);
        Output.Step(ok ? "Done: everything read back is what was written." : "FAILED: see the checks above.");
        return ok;
    }

    private static async Task<bool> InNewDatabaseAsync(CosmosClient client, string prefix, Func<Database, Task<bool>> run)
    {
        Database database = (await client.CreateDatabaseAsync(prefix + Guid.NewGuid().ToString("N"))).Database;
        try
        {
            return await run(database);
        }
        finally
        {
            await database.DeleteAsync();
        }
    }

    // The README's example as written there: with the Key Vault key in AZURE_KEY_VAULT_KEY_ID, else a local KEK.
    private static async Task<bool> RunReadmeExampleAsync(Database database)
    {
        string? keyVaultKeyId = Environment.GetEnvironmentVariable("AZURE_KEY_VAULT_KEY_ID");
        Output.Step("The README's example, with " + (keyVaultKeyId is null ? "a local key-encryption key" : "the Key Vault key " + keyVaultKeyId));
        await database.CreateContainerAsync("customers", "/tenant");
        (EncryptionKeyWrapProvider provider, Encryption.Custom.EncryptionKeyWrapMetadata kek) = keyVaultKeyId is null
            ? ReadmeExample.LocalKey(RandomNumberGenerator.GetBytes(32))
            : ReadmeExample.KeyVault(keyVaultKeyId);
        using var disposableProvider = provider as IDisposable;

        var customer = new Customer("r1", "contoso", "Ada", "078-05-1120", "4111 1111 1111 1111", new("1 Main St", "Springfield"), 7);
        Customer read = await ReadmeExample.WriteAndReadAsync(database, provider, kek, customer);
        JObject stored = await Stored.ReadAsync(database.GetContainer("customers"), customer.Id, customer.Tenant);
        Output.Line($"stored ssn: {stored["ssn"]}");
        bool ok = Output.Check(read == customer, "the README's read returns the written customer")
            & Output.Check((string?)stored["ssn"] != customer.Ssn && stored["_ei"] is not null, "the README's write stored the SSN encrypted");

        // Another writer, without the encryption container, stores a customer in plaintext: the policy refuses to read it.
        Output.Step("A document written in plaintext by another writer, read through the container's policy");
        var intruder = customer with { Id = "r2" };
        await database.GetContainer("customers").CreateItemAsync(intruder, new PartitionKey(intruder.Tenant));
        using var keys = new CosmosDataEncryptionKeyProvider(provider);
        await keys.InitializeAsync(database, "keys");
        Container customers = database.GetContainer("customers").WithEncryptor(
            new CosmosEncryptor(keys), new() { Policy = new ContainerEncryptionPolicy("customers-dek", ["/ssn", "/creditCard"]) });
        try
        {
            await customers.ReadItemAsync<Customer>(intruder.Id, new PartitionKey(intruder.Tenant));
            return Output.Check(false, "the policy refuses the plaintext document");
        }
        catch (EncryptionException refused)
        {
            Output.Line($"{refused.Kind}: {refused.Message}");
            return ok & Output.Check(refused.Kind == EncryptionErrorKind.PlaintextForbidden && !refused.Message.Contains(intruder.Ssn, StringComparison.Ordinal), "the policy refuses the plaintext document without echoing its values");
        }
    }

    // docs/hosting.md: the same DEK and container, used by a generic host through dependency injection.
    private static async Task<bool> RunHostingExampleAsync(CosmosClient client, Database database)
    {
        string? keyVaultKeyId = Environment.GetEnvironmentVariable("AZURE_KEY_VAULT_KEY_ID");
        Output.Step("A generic host (docs/hosting.md): AddCosmosEncryption, warm-up at start, health check, a keyed encrypted container");
        byte[]? developmentKek = keyVaultKeyId is null ? RandomNumberGenerator.GetBytes(32) : null;

        // Provisioning, done once by a deployment step: the DEK container, the DEK and the data container.
        (EncryptionKeyWrapProvider provider, Encryption.Custom.EncryptionKeyWrapMetadata kek) = developmentKek is null
            ? ReadmeExample.KeyVault(keyVaultKeyId!)
            : ReadmeExample.LocalKey(developmentKek);
        using (provider as IDisposable)
        using (var keys = new CosmosDataEncryptionKeyProvider(provider))
        {
            await keys.InitializeAsync(database, "keys");
            await keys.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("customers-dek", CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, kek);
        }

        await database.CreateContainerAsync("customers", "/tenant");
        var settings = new Dictionary<string, string?>
        {
            ["CosmosEncryption:DatabaseId"] = database.Id,
            ["CosmosEncryption:KeyContainerId"] = "keys",
            ["CosmosEncryption:DataEncryptionKeyIds:0"] = "customers-dek",
            ["Logging:LogLevel:Microsoft.Hosting.Lifetime"] = "Warning",
        };
        using IHost host = HostingExample.Build(client, database.Id, settings, developmentKek);
        await host.StartAsync();
        HealthReport health = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();
        Output.Line($"health: {health.Status} ({health.Entries.Values.First().Description})");

        var customer = new Customer("h1", "contoso", "Ada", "078-05-1120", "4111 1111 1111 1111", new("1 Main St", "Springfield"), 7);
        CustomerStore store = host.Services.GetRequiredService<CustomerStore>();
        await store.AddAsync(customer);
        Customer read = await store.GetAsync(customer.Id, customer.Tenant);
        JObject stored = await Stored.ReadAsync(database.GetContainer("customers"), customer.Id, customer.Tenant);
        await host.StopAsync();
        if (developmentKek is not null)
        {
            CryptographicOperations.ZeroMemory(developmentKek);
        }

        return Output.Check(health.Status == HealthStatus.Healthy, "the host started with the DEK warmed and the health check healthy")
            & Output.Check(read == customer, "the customer read through the keyed container is the one written")
            & Output.Check((string?)stored["ssn"] != customer.Ssn && stored["_ei"] is not null, "the host's write stored the SSN encrypted");
    }

    // docs/migrating.md's "after" code: Microsoft's idioms (EncryptableItem, DecryptableItem, a HashSet of paths,
    // new EncryptionKeyWrapMetadata(name, url), await using) on this library. With the Key Vault key in
    // AZURE_KEY_VAULT_KEY_ID, else with a key-wrap provider written for Microsoft's package and moved over.
    private static async Task<bool> RunMigrationExampleAsync(Database database)
    {
        string? keyVaultKeyId = Environment.GetEnvironmentVariable("AZURE_KEY_VAULT_KEY_ID");
        Output.Step("docs/migrating.md's example, with " + (keyVaultKeyId is null ? "a migrated custom key-wrap provider" : "the Key Vault key " + keyVaultKeyId));
        await database.CreateContainerAsync("orders", "/tenant");
        string keyUrl = keyVaultKeyId ?? "https://key-store.example/keys/orders-kek";
        EncryptionKeyWrapProvider provider = keyVaultKeyId is null
            ? new MigratedKeyWrapProvider(keyUrl, RandomNumberGenerator.GetBytes(32))
            : new AzureKeyVaultKeyWrapProvider(new DefaultAzureCredential());

        var order = new Order("o1", "contoso", "4111 1111 1111 1111", new("1 Main St", "Springfield"), 42.5);
        IReadOnlyList<Order> reads = await MigrationExample.WriteAndReadAsync(database, provider, keyUrl, order);
        JObject stored = await Stored.ReadAsync(database.GetContainer("orders"), order.Id, order.Tenant);
        Output.Line($"stored cardNumber: {stored["cardNumber"]}");
        return Output.Check(reads.Count == 3 && reads.All(read => read == order), "the migrated code's create response, point read and query return the written order")
            & Output.Check((string?)stored["cardNumber"] != order.CardNumber && stored["_ei"] is not null, "the migrated code stored the card number encrypted");
    }

    // docs/key-management.md's local-key block as written: the key files it names, in a folder of their own.
    private static async Task<bool> RunLocalKeysExampleAsync(Database database)
    {
        Output.Step("docs/key-management.md's local keys: an RSA PEM, an AES JWK and raw AES bytes");
        DirectoryInfo folder = Directory.CreateTempSubdirectory("encryption-sample-keys-");
        try
        {
            Directory.CreateDirectory(Path.Combine(folder.FullName, "secrets"));
            using (var rsa = RSA.Create(3072))
            {
                await File.WriteAllTextAsync(Path.Combine(folder.FullName, "secrets", "dev-kek.pem"), rsa.ExportPkcs8PrivateKeyPem());
            }

            string jwk = $$"""{"kty":"oct","k":"{{Convert.ToBase64String(RandomNumberGenerator.GetBytes(32)).TrimEnd('=').Replace('+', '-').Replace('/', '_')}}"}""";
            await File.WriteAllTextAsync(Path.Combine(folder.FullName, "secrets", "dev-kek.jwk"), jwk);
            DataEncryptionKeyProperties dek = await DocsExamples.LocalKeysAsync(database, RandomNumberGenerator.GetBytes(32), folder.FullName);
            return Output.Check(dek.EncryptionKeyWrapMetadata.Type == LocalKeyWrapProvider.MetadataType && dek.EncryptionKeyWrapMetadata.Name == "dev-kek", "the local-key block created a DEK wrapped by 'dev-kek'");
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    // docs/queries.md: the SSN encrypted deterministically, so the service can match it without seeing it.
    private static async Task<bool> RunQueriesExampleAsync(Database database)
    {
        Output.Step("docs/queries.md: look customers up by their encrypted SSN (a deterministic policy path)");
        byte[] kek = RandomNumberGenerator.GetBytes(32);
        using var keyWrapProvider = new LocalKeyWrapProvider();
        keyWrapProvider.AddAesKey("kek", kek);
        using var keys = new CosmosDataEncryptionKeyProvider(keyWrapProvider);
        await keys.InitializeAsync(database, "keys");
        foreach (string dek in new[] { "customers-dek", "customers-dek-2" })
        {
            await keys.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(dek, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, Metadata("kek"));
        }

        var encryptor = new CosmosEncryptor(keys);
        Container raw = (await database.CreateContainerAsync("customers", "/tenant")).Container;
        Container customers = QueriesExample.Customers(raw, encryptor);
        Customer[] written =
        [
            new("q1", "contoso", "Ada", "078-05-1120", "4111 1111 1111 1111", new("1 Main St", "Springfield"), 10),
            new("q2", "contoso", "Grace", "219-09-9999", "5500 0000 0000 0004", new("2 Elm St", "Shelbyville"), 20),
            new("q3", "fabrikam", "Linus", "457-55-5462", "3400 0000 0000 009", new("3 Oak Ave", "Ogdenville"), 30),
        ];
        foreach (Customer customer in written)
        {
            await customers.CreateItemAsync(customer, new PartitionKey(customer.Tenant));
        }

        JObject stored = await Stored.ReadAsync(raw, "q1", "contoso");
        Output.Line($"stored ssn of q1: {stored["ssn"]}");
        List<Customer> bySql = await ReadAllAsync(QueriesExample.BySsn(customers));
        List<Customer> byList = await ReadAllAsync(QueriesExample.BySsns(customers));
        List<Customer> byExplicit = await ReadAllAsync(await QueriesExample.BySsnExplicitAsync(customers));
        List<Customer> byLinq = await ReadAllAsync(QueriesExample.BySsnLinq(customers, "457-55-5462"));
        bySql.ForEach(c => Output.Line($"SQL c.ssn = @ssn: {c.Id} {c.Name}, SSN {c.Ssn}"));
        bool ok = Output.Check((string?)stored["ssn"] != written[0].Ssn, "the stored SSN is ciphertext")
            & Output.Check(bySql.SequenceEqual(written.Take(1)), "c.ssn = @ssn finds exactly the customer with that SSN, decrypted")
            & Output.Check(byList.OrderBy(c => c.Id).SequenceEqual(written.Take(2)), "c.ssn IN (@a, '219-09-9999') finds both customers")
            & Output.Check(byExplicit.SequenceEqual(written.Take(1)), "AddParameterAsync, the explicit form, finds the same customer")
            & Output.Check(byLinq.SequenceEqual(written.Skip(2)), "LINQ c.Ssn == ssn finds the customer with that SSN");
        try
        {
            customers.GetItemQueryIterator<Customer>("SELECT * FROM c ORDER BY c.ssn").Dispose();
            ok &= Output.Check(false, "ORDER BY an encrypted path is refused");
        }
        catch (NotSupportedException refused)
        {
            Output.Line($"refused: {refused.Message}");
            ok &= Output.Check(true, "ORDER BY an encrypted path is refused before anything is sent");
        }

        Output.Step("docs/queries.md: a lookup during a DEK rotation finds the SSN under both keys");
        Container during = QueriesExample.DuringRotation(raw, encryptor);
        Customer duplicate = written[0] with { Id = "q4", Name = "Ada (new key)" };
        await during.CreateItemAsync(duplicate, new PartitionKey(duplicate.Tenant));
        List<Customer> both = await ReadAllAsync(QueriesExample.BySsnUnderBothKeys(during));
        both.ForEach(c => Output.Line($"{c.Id} {c.Name}, SSN {c.Ssn}"));
        JObject storedNew = await Stored.ReadAsync(raw, "q4", "contoso");
        ok &= Output.Check((string?)storedNew["_ei"]?["_en"] == "customers-dek-2" && (string?)storedNew["ssn"] != (string?)stored["ssn"], "the new write is under the new key (another ciphertext for the same SSN)")
            & Output.Check(both.OrderBy(c => c.Id).Select(c => c.Id).SequenceEqual(["q1", "q4"]), "the query finds the document under the old key and the one under the new key");

        Output.Step("docs/queries.md: range and prefix queries on encrypted paths (query tokens)");
        Container rangedRaw = (await database.CreateContainerAsync("customers-ranged", "/tenant")).Container;
        Container ranged = RangeQueriesExample.Customers(rangedRaw, encryptor);
        foreach (Customer customer in written)
        {
            await ranged.CreateItemAsync(customer, new PartitionKey(customer.Tenant));
        }

        JObject storedRanged = await Stored.ReadAsync(rangedRaw, "q2", "contoso");
        Output.Line($"stored tokens of q2's balance: {storedRanged["_q"]?["/balance"]?.ToString(Newtonsoft.Json.Formatting.None)}");
        List<Customer> byRange = await ReadAllAsync(RangeQueriesExample.BySql(ranged));
        List<Customer> byRangeLinq = await ReadAllAsync(RangeQueriesExample.ByLinq(ranged, 10, 30));
        ok &= Output.Check(storedRanged["_q"]?["/balance"] is Newtonsoft.Json.Linq.JArray && (string?)storedRanged["balance"] != "20", "the balance is ciphertext, its range tokens are beside it")
            & Output.Check(byRange.SequenceEqual(written.Skip(1).Take(1)), "c.balance >= 15 AND STARTSWITH(c.name, 'Gr') finds Grace, decrypted")
            & Output.Check(byRangeLinq.OrderBy(c => c.Id).SequenceEqual(written.Take(2)), "LINQ c.Balance >= 10 && c.Balance < 30 finds Ada and Grace");
        CryptographicOperations.ZeroMemory(kek);
        return ok;
    }

    private static async Task<bool> RunInDatabaseAsync(Database database)
    {
        // 1. A key-encryption key. In production: new AzureKeyVaultKeyWrapProvider(new DefaultAzureCredential()).
        byte[] kek2024 = RandomNumberGenerator.GetBytes(32);
        byte[] kek2025 = RandomNumberGenerator.GetBytes(32);
        using var keyWrapProvider = new LocalKeyWrapProvider();
        keyWrapProvider.AddAesKey("kek-2024", kek2024);

        Output.Step("Create a data encryption key, wrapped by the local key-encryption key 'kek-2024'");
        using var keys = new CosmosDataEncryptionKeyProvider(keyWrapProvider);
        await keys.InitializeAsync(database, "keys");
        DataEncryptionKeyProperties dek = (await keys.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(
            DekId, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, Metadata("kek-2024"))).Resource;
        Output.Line($"DEK '{dek.Id}': {dek.WrappedDataEncryptionKey.Length} wrapped bytes, KEK '{dek.EncryptionKeyWrapMetadata.Name}'");

        // 2. The application's container, wrapped once with the encryptor.
        Container raw = (await database.CreateContainerAsync("customers", "/tenant")).Container;
        Container customers = raw.WithEncryptor(new CosmosEncryptor(keys));
        var encrypt = new EncryptionItemRequestOptions
        {
            EncryptionOptions = new() { DataEncryptionKeyId = DekId, PathsToEncrypt = Customer.EncryptedPaths },
        };

        Output.Step("Write three customers, encrypting " + string.Join(", ", Customer.EncryptedPaths));
        Customer[] written =
        [
            new("c1", "contoso", "Ada", "078-05-1120", "4111 1111 1111 1111", new("1 Main St", "Springfield"), 9007199254740993),
            new("c2", "contoso", "Grace", "219-09-9999", "5500 0000 0000 0004", new("2 Elm St", "Shelbyville"), -42),
            new("c3", "fabrikam", "Linus", "457-55-5462", "3400 0000 0000 009", new("3 Oak Ave", "Ogdenville"), 0),
        ];
        foreach (Customer customer in written)
        {
            ItemResponse<Customer> created = await customers.CreateItemAsync(customer, new PartitionKey(customer.Tenant), encrypt);
            Output.Line($"{created.StatusCode}: {customer.Id} ({created.RequestCharge:0.##} RU)");
        }

        Output.Step("What the service stores beside what the application reads");
        JObject stored = await Stored.ReadAsync(raw, "c1", "contoso");
        Customer read = (await customers.ReadItemAsync<Customer>("c1", new PartitionKey("contoso"))).Resource;
        Output.SideBySide("stored (raw container)", stored, "read (encryption container)", JObject.FromObject(read));
        bool ok = Output.Check(read == written[0], "the read customer equals the written one")
            & Output.Check((string?)stored["ssn"] != written[0].Ssn && stored["_ei"] is not null, "the stored SSN is ciphertext");

        Output.Step("Query: SELECT * FROM c WHERE c.tenant = 'contoso'");
        QueryDefinition query = new QueryDefinition("SELECT * FROM c WHERE c.tenant = @tenant").WithParameter("@tenant", "contoso");
        List<Customer> found = await ReadAllAsync(customers.GetItemQueryIterator<Customer>(query));
        found.ForEach(c => Output.Line($"{c.Id}: {c.Name}, SSN {c.Ssn}, {c.Address.City}, balance {c.Balance}"));
        ok &= Output.Check(found.OrderBy(c => c.Id).SequenceEqual(written.Take(2)), "the query returns the two contoso customers, decrypted");

        Output.Step("Change feed from the beginning");
        List<Customer> changes = await ReadChangesAsync(customers);
        changes.ForEach(c => Output.Line($"{c.Id}: {c.Name}, card {c.CreditCard}"));
        ok &= Output.Check(changes.OrderBy(c => c.Id).SequenceEqual(written), "the change feed returns every customer, decrypted");

        Output.Step("Rotate the key-encryption key: rewrap the DEK with 'kek-2025' (documents stay as they are)");
        keyWrapProvider.AddAesKey("kek-2025", kek2025);
        DataEncryptionKeyProperties rewrapped = (await keys.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync(DekId, Metadata("kek-2025"))).Resource;
        Output.Line($"DEK '{rewrapped.Id}' is now wrapped by '{rewrapped.EncryptionKeyWrapMetadata.Name}'");
        ok &= Output.Check(rewrapped.EncryptionKeyWrapMetadata.Name == "kek-2025", "the DEK is wrapped by the new KEK");

        Output.Step("Read again, as a new process that only has 'kek-2025'");
        using var newKeyWrapProvider = new LocalKeyWrapProvider();
        newKeyWrapProvider.AddAesKey("kek-2025", kek2025);
        using var newKeys = new CosmosDataEncryptionKeyProvider(newKeyWrapProvider);
        newKeys.Initialize(keys.Container);
        Container afterRotation = raw.WithEncryptor(new CosmosEncryptor(newKeys));
        foreach (Customer customer in written)
        {
            Customer again = (await afterRotation.ReadItemAsync<Customer>(customer.Id, new PartitionKey(customer.Tenant))).Resource;
            Output.Line($"{again.Id}: {again.Name}, SSN {again.Ssn}");
            ok &= Output.Check(again == customer, $"{customer.Id} reads back unchanged after the rotation");
        }

        CryptographicOperations.ZeroMemory(kek2024);
        CryptographicOperations.ZeroMemory(kek2025);
        return ok;
    }

    private static Encryption.Custom.EncryptionKeyWrapMetadata Metadata(string kek) => LocalKeyWrapProvider.CreateMetadata(kek, KeyWrapAlgorithm.AesKeyWrap);

    private static async Task<List<T>> ReadAllAsync<T>(FeedIterator<T> iterator)
    {
        using (iterator)
        {
            var items = new List<T>();
            while (iterator.HasMoreResults)
            {
                items.AddRange(await iterator.ReadNextAsync());
            }

            return items;
        }
    }

    private static async Task<List<Customer>> ReadChangesAsync(Container container)
    {
        using FeedIterator<Customer> iterator = container.GetChangeFeedIterator<Customer>(ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion);
        var changes = new List<Customer>();
        while (iterator.HasMoreResults)
        {
            FeedResponse<Customer> page = await iterator.ReadNextAsync();
            if (page.StatusCode == System.Net.HttpStatusCode.NotModified)
            {
                break;
            }

            changes.AddRange(page);
        }

        return changes;
    }
}
