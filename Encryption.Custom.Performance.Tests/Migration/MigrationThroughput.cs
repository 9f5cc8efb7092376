using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using Encryption.Custom.Performance.Tests.Infrastructure;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Performance.Tests.Migration;

/// <summary>
/// Documents per second of <see cref="EncryptionMigrationJob"/> against a real endpoint:
/// <c>Emulator/emulator.sh run -- dotnet run -c Release --project Encryption.Custom.Performance.Tests --
/// MigrationThroughput [--documents 2000]</c> (or with <c>COSMOS_ENDPOINT</c>/<c>COSMOS_KEY</c> set to any endpoint).
/// For 1 KB and 8 KB documents it seeds plaintext documents, encrypts them (target DEK1), then rotates them (DEK1 to
/// DEK2), once with the default options and once with bulk execution, and prints one row per run.
/// </summary>
/// <remarks>
/// Not a BenchmarkDotNet benchmark: one run is several seconds of a distributed job (change feed, leases, conditional
/// replaces), so it is timed once, end to end, from <see cref="EncryptionMigrationJob.RunAsync"/> to its verified
/// completion; "rewrite rate" stops at the progress report that first shows every document rewritten (reports every
/// 200 ms). Each run has its own database, deleted afterwards. Exits 2 on bad arguments, 1 when a run does not
/// complete, else 0 (timings are not a pass/fail check).
/// </remarks>
public static class MigrationThroughput
{
    public const string Name = "MigrationThroughput";

    private static readonly int[] s_sizes = [1024, 8192];

    public static async Task<int> RunAsync(string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        if (MigrationEndpoint.FromArguments(args, Name, defaultDocuments: 2000) is not (Uri endpoint, string key, int documents))
        {
            return 2;
        }

        Console.WriteLine($"{Name}: {documents} documents per run, endpoint kind {Environment.GetEnvironmentVariable("COSMOS_ENDPOINT_KIND") ?? "external"}");
        Console.WriteLine(string.Join('\n', MachineDescription.Describe().Select(item => $"- {item.Name}: {item.Value}")));
        Console.WriteLine("| size | run | bulk | documents | rewrite rate (docs/s) | end to end (docs/s) | RU per document |");
        Console.WriteLine("|---|---|---|---:|---:|---:|---:|");
        bool allCompleted = true;
        foreach (int size in s_sizes)
        {
            foreach (bool bulk in new[] { false, true })
            {
                allCompleted &= await MeasureAsync(endpoint, key, size, bulk, documents).ConfigureAwait(false);
            }
        }

        return allCompleted ? 0 : 1;
    }

    private static async Task<bool> MeasureAsync(Uri endpoint, string key, int size, bool bulk, int count)
    {
        // The documents through a bulk client when measuring bulk; the lease container always through a plain client:
        // the change feed processor's lease reads and checkpoints are sequential, and bulk would hold each one back
        // for the SDK's batch dispatch (docs/migration.md).
        using CosmosClient client = MigrationEndpoint.CreateClient(endpoint, key, bulk: false);
        using CosmosClient? bulkClient = bulk ? MigrationEndpoint.CreateClient(endpoint, key, bulk: true) : null;
        CosmosClient documentClient = bulkClient ?? client;
        Database database = (await client.CreateDatabaseAsync("migration-bench-" + Guid.NewGuid().ToString("N")).ConfigureAwait(false)).Database;
        try
        {
            await database.CreateContainerAsync("documents", "/pk").ConfigureAwait(false);
            Container container = documentClient.GetContainer(database.Id, "documents");
            Container leases = (await database.CreateContainerAsync("leases", "/id").ConfigureAwait(false)).Container;
            using var kek = new LocalKeyWrapProvider();
            kek.AddAesKey("kek", RandomNumberGenerator.GetBytes(32));
            using var keys = new CosmosDataEncryptionKeyProvider(kek);
            await keys.InitializeAsync(database, "keys").ConfigureAwait(false);
            EncryptionKeyWrapMetadata metadata = LocalKeyWrapProvider.CreateMetadata("kek", KeyWrapAlgorithm.AesKeyWrap);
            foreach (string dek in new[] { "dek1", "dek2" })
            {
                await keys.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(dek, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, metadata).ConfigureAwait(false);
            }

            var encryptor = new CosmosEncryptor(keys);
            await SeedAsync(container, size, count).ConfigureAwait(false);
            string[] paths = ["/ssn", "/salary", "/profile"];
            bool encrypted = await TimeAsync(container, encryptor, leases, new ContainerEncryptionPolicy("dek1", paths), [], "encrypt", size, bulk, count).ConfigureAwait(false);
            bool rotated = await TimeAsync(container, encryptor, leases, new ContainerEncryptionPolicy("dek2", paths), ["dek1"], "rotate", size, bulk, count).ConfigureAwait(false);
            return encrypted && rotated;
        }
        finally
        {
            await database.DeleteAsync().ConfigureAwait(false);
        }
    }

    private static async Task<bool> TimeAsync(
        Container container, Encryptor encryptor, Container leases, ContainerEncryptionPolicy target, string[] sources, string run, int size, bool bulk, int count)
    {
        var options = new EncryptionMigrationOptions
        {
            ProcessorName = run,
            UseBulkExecution = bulk,
            PollInterval = TimeSpan.FromMilliseconds(200),
            ProgressInterval = TimeSpan.FromMilliseconds(200),
        };
        long allRewritten = 0;
        long start = Stopwatch.GetTimestamp();
        var progress = new InlineProgress(p =>
        {
            if (p.DocumentsRewritten >= count)
            {
                Interlocked.CompareExchange(ref allRewritten, Stopwatch.GetTimestamp(), 0);
            }
        });
        foreach (string source in sources)
        {
            options.AcceptedSourceDataEncryptionKeyIds.Add(source);
        }

        await using var job = new EncryptionMigrationJob(container, encryptor, target, leases, options);
        EncryptionMigrationResult result = await job.RunAsync(progress).ConfigureAwait(false);
        double total = Stopwatch.GetElapsedTime(start).TotalSeconds;
        double rewrite = allRewritten == 0 ? double.NaN : Stopwatch.GetElapsedTime(start, allRewritten).TotalSeconds;
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"| {size / 1024} KB | {run} | {(bulk ? "yes" : "no")} | {result.Progress.DocumentsRewritten} | {count / rewrite:F0} | {count / total:F0} | {result.Progress.RequestUnits / count:F2} |"));
        if (!result.Completed || result.Progress.DocumentsRewritten != count)
        {
            Console.Error.WriteLine($"{run} of {size}-byte documents did not complete: {result.Progress.DocumentsRewritten} of {count} rewritten, {result.Failures.Count} failures.");
            return false;
        }

        return true;
    }

    // Plaintext documents of about `size` bytes: three properties to encrypt (a short string, a number, an object of
    // about a third of the document) and a plaintext remainder.
    private static async Task SeedAsync(Container container, int size, int count)
    {
        string filler = new('x', Math.Max(16, (size / 3) - 40));
        for (int start = 0; start < count; start += 50)
        {
            await Task.WhenAll(Enumerable.Range(start, Math.Min(50, count - start)).Select(async i =>
            {
                string id = "d" + i.ToString(CultureInfo.InvariantCulture);
                string pk = "p" + (i % 16).ToString(CultureInfo.InvariantCulture);
                string json = string.Create(CultureInfo.InvariantCulture,
                    $$"""{"id":"{{id}}","pk":"{{pk}}","ssn":"123-45-{{i % 10000:D4}}","salary":{{i * 10}},"profile":{"street":"{{filler}}","city":"Springfield","tags":["a","b"]},"notes":"{{filler}}","more":"{{filler}}"}""");
                using var body = new MemoryStream(Encoding.UTF8.GetBytes(json));
                using ResponseMessage response = await container.CreateItemStreamAsync(body, new PartitionKey(pk)).ConfigureAwait(false);
                response.EnsureSuccessStatusCode();
            })).ConfigureAwait(false);
        }
    }
}
