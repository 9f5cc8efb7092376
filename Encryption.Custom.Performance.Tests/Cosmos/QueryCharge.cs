using System.Globalization;
using System.Security.Cryptography;
using Encryption.Custom.Performance.Tests.Infrastructure;
using Encryption.Custom.Performance.Tests.Migration;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Performance.Tests.Cosmos;

/// <summary>
/// The request charge of range and prefix queries on encrypted paths against the same queries on a plaintext copy
/// (docs/benchmarks.md "Request charge of token queries"):
/// <c>COSMOS_ENDPOINT=… COSMOS_KEY=… dotnet run -c Release --project Encryption.Custom.Performance.Tests -- QueryCharge
/// [--documents 1000]</c>. Seeds the same documents into a plaintext container (the service's default indexing) and an
/// encrypted one (<see cref="ContainerEncryptionPolicy.CreateIndexingPolicy"/>), runs each query on both, page by
/// page, and prints per query the rows and the summed <see cref="FeedResponse{T}.RequestCharge"/> of each, plus the
/// write charge per document.
/// </summary>
/// <remarks>
/// Only an account's charges mean anything: the bundled endpoint (<c>Emulator/emulator.sh run -- …</c>) charges by its
/// own model (docs/migration.md), which this run then only exercises. Each run has its own database, deleted
/// afterwards. Exits 2 on bad arguments or without an endpoint, 1 when the two containers return different rows.
/// </remarks>
public static class QueryCharge
{
    public const string Name = "QueryCharge";

    private static readonly string[] s_names =
    [
        "Margaret", "Mario", "Marta", "Martin", "Maria", "Mark", "Mary", "Matteo", "Ada", "Adam", "Adele", "Alan",
        "Alice", "Amelia", "Bob", "Bruno", "Carla", "Chen", "Dana", "Elena", "Emil", "Fatima", "Grace", "Greta",
        "Hana", "Ivan", "Jonas", "Kofi", "Lena", "Linus", "Noah", "Olga", "Priya", "Rosa", "Sami", "Yuki",
    ];

    private static ContainerEncryptionPolicy Policy => new("dek1",
    [
        new EncryptionPolicyIncludedPath("/name") { Queries = new PrefixQueryOptions() },
        new EncryptionPolicyIncludedPath("/age") { Queries = new IntegerRangeQueryOptions(0, 120) },
        new EncryptionPolicyIncludedPath("/dob") { Queries = new DateTimeRangeQueryOptions(new DateTimeOffset(1900, 1, 1, 0, 0, 0, TimeSpan.Zero), new DateTimeOffset(2100, 1, 1, 0, 0, 0, TimeSpan.Zero)) },
        new EncryptionPolicyIncludedPath("/balance") { Queries = new DecimalRangeQueryOptions(0, 1_000_000, 2) },
        new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic },
    ]);

    // Each query as sent to both containers (dates in one form, so the plaintext container's string order is the instants').
    private static readonly (string Label, string Text)[] s_queries =
    [
        ("age, one decade", "SELECT * FROM c WHERE c.age BETWEEN 30 AND 39"),
        ("age, adults", "SELECT * FROM c WHERE c.age >= 18"),
        ("dob, one year", "SELECT * FROM c WHERE c.dob >= '1980-01-01T00:00:00.0000000Z' AND c.dob < '1981-01-01T00:00:00.0000000Z'"),
        ("dob, ten years", "SELECT * FROM c WHERE c.dob >= '1970-01-01T00:00:00.0000000Z' AND c.dob < '1980-01-01T00:00:00.0000000Z'"),
        ("balance, 1 % of the domain", "SELECT * FROM c WHERE c.balance >= 500000 AND c.balance < 510000"),
        ("name, 2 characters", "SELECT * FROM c WHERE STARTSWITH(c.name, 'Ma')"),
        ("name, 3 characters", "SELECT * FROM c WHERE STARTSWITH(c.name, 'Mar')"),
        ("name, 5 characters", "SELECT * FROM c WHERE STARTSWITH(c.name, 'Marga')"),
    ];

    public static async Task<int> RunAsync(string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        if (MigrationEndpoint.FromArguments(args, Name, defaultDocuments: 1000) is not (Uri endpoint, string key, int documents))
        {
            return 2;
        }

        string kind = Environment.GetEnvironmentVariable("COSMOS_ENDPOINT_KIND") ?? "external";
        Console.WriteLine($"{Name}: {documents} documents, endpoint kind {kind}{(kind == "bundled" ? " (its charges are its own model, not an account's)" : string.Empty)}");
        Console.WriteLine(string.Join('\n', MachineDescription.Describe().Select(item => $"- {item.Name}: {item.Value}")));
        using CosmosClient client = MigrationEndpoint.CreateClient(endpoint, key);
        Database database = (await client.CreateDatabaseAsync("query-charge-" + Guid.NewGuid().ToString("N")).ConfigureAwait(false)).Database;
        try
        {
            return await MeasureAsync(database, documents).ConfigureAwait(false);
        }
        finally
        {
            await database.DeleteAsync().ConfigureAwait(false);
        }
    }

    private static async Task<int> MeasureAsync(Database database, int documents)
    {
        ContainerEncryptionPolicy policy = Policy;
        Container plain = (await database.CreateContainerAsync("plain", "/pk").ConfigureAwait(false)).Container;
        Container raw = (await database.CreateContainerAsync(new ContainerProperties("encrypted", "/pk") { IndexingPolicy = policy.CreateIndexingPolicy() }).ConfigureAwait(false)).Container;
        using var kek = new LocalKeyWrapProvider();
        kek.AddAesKey("kek", RandomNumberGenerator.GetBytes(32));
        using var keys = new CosmosDataEncryptionKeyProvider(kek);
        await keys.InitializeAsync(database, "keys").ConfigureAwait(false);
        await keys.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, LocalKeyWrapProvider.CreateMetadata("kek", KeyWrapAlgorithm.AesKeyWrap)).ConfigureAwait(false);
        Container encrypted = raw.WithEncryptor(new CosmosEncryptor(keys), new EncryptionContainerOptions { Policy = policy });

        (double plainWrites, double encryptedWrites) = await SeedAsync(plain, encrypted, documents).ConfigureAwait(false);
        Console.WriteLine($"- write charge per document: plaintext {plainWrites / documents:F2} RU, encrypted with tokens {encryptedWrites / documents:F2} RU");
        Console.WriteLine();
        Console.WriteLine("| query | rows | RU plaintext | RU encrypted | ratio |");
        Console.WriteLine("|---|---:|---:|---:|---:|");
        bool same = true;
        foreach ((string label, string text) in s_queries)
        {
            (string[] plainIds, double plainCharge) = await RunAsync(plain, text).ConfigureAwait(false);
            (string[] encryptedIds, double encryptedCharge) = await RunAsync(encrypted, text).ConfigureAwait(false);
            same &= plainIds.SequenceEqual(encryptedIds);
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"| {label} | {plainIds.Length}{(plainIds.SequenceEqual(encryptedIds) ? string.Empty : $" (encrypted: {encryptedIds.Length})")} | {plainCharge:F2} | {encryptedCharge:F2} | {encryptedCharge / plainCharge:F2} |"));
        }

        if (!same)
        {
            Console.Error.WriteLine("The encrypted container returned other rows than the plaintext one.");
        }

        return same ? 0 : 1;
    }

    private static async Task<(double Plain, double Encrypted)> SeedAsync(Container plain, Container encrypted, int documents)
    {
        var random = new Random(20261129);
        double plainCharge = 0;
        double encryptedCharge = 0;
        var dobStart = new DateTime(1930, 1, 1, 0, 0, 0, DateTimeKind.Utc);
        for (int i = 0; i < documents; i++)
        {
            var document = new JObject
            {
                ["id"] = "d" + i.ToString(CultureInfo.InvariantCulture),
                ["pk"] = "p" + (i % 16).ToString(CultureInfo.InvariantCulture),
                ["name"] = s_names[random.Next(s_names.Length)] + " " + (char)('A' + random.Next(26)) + ".",
                ["age"] = random.Next(0, 120),
                ["dob"] = dobStart.AddDays(random.Next(0, 80 * 365)).ToString("yyyy-MM-ddTHH:mm:ss.fffffffZ", CultureInfo.InvariantCulture),
                ["balance"] = Math.Round(random.NextDouble() * 1_000_000, 2),
                ["ssn"] = random.Next(100_000_000, 999_999_999).ToString(CultureInfo.InvariantCulture),
            };
            var partitionKey = new PartitionKey((string)document["pk"]!);
            plainCharge += (await plain.CreateItemAsync(document, partitionKey).ConfigureAwait(false)).RequestCharge;
            encryptedCharge += (await encrypted.CreateItemAsync(document, partitionKey).ConfigureAwait(false)).RequestCharge;
        }

        return (plainCharge, encryptedCharge);
    }

    private static async Task<(string[] Ids, double Charge)> RunAsync(Container container, string text)
    {
        var ids = new List<string>();
        double charge = 0;
        using FeedIterator<JObject> iterator = container.GetItemQueryIterator<JObject>(new QueryDefinition(text), requestOptions: new QueryRequestOptions { MaxItemCount = 100 });
        while (iterator.HasMoreResults)
        {
            FeedResponse<JObject> page = await iterator.ReadNextAsync().ConfigureAwait(false);
            charge += page.RequestCharge;
            ids.AddRange(page.Select(row => (string)row["id"]!));
        }

        ids.Sort(StringComparer.Ordinal);
        return ([.. ids], charge);
    }
}
