using System.Collections.Concurrent;
using System.Globalization;
using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// What the migration tests share: document counts (scaled by <c>MIGRATION_TEST_DOCUMENTS</c>), seeding, running a
/// job to its end within a bound, and reading back what the service stores.
/// </summary>
internal static class MigrationScenario
{
    /// <summary>
    /// The document count of the writer-race and rotation tests (default <see cref="DefaultScale"/>). They test the
    /// race and the rotation, not volume: the 5,000-document runs of the first issue took 86 s and 51 s of the suite,
    /// and throughput is measured by the migration benchmark (docs/benchmarks.md). A larger value
    /// (<c>MIGRATION_TEST_DOCUMENTS=5000</c>) reruns them at that scale. The other tests use at most
    /// <see cref="SmallScale"/>, so a smaller value makes every test quicker.
    /// </summary>
    public const string DocumentsVariable = "MIGRATION_TEST_DOCUMENTS";

    public const int DefaultScale = 400;

    public const int SmallScale = 200;

    public static readonly string[] Paths = ["/ssn", "/salary"];

    /// <summary>How long a job may take before the test gives up (the job is then cancelled and the test fails).</summary>
    public static readonly TimeSpan RunBound = TimeSpan.FromSeconds(240);

    /// <summary>The writer-race and rotation tests' count.</summary>
    public static int Documents =>
        int.TryParse(Environment.GetEnvironmentVariable(DocumentsVariable), NumberStyles.Integer, CultureInfo.InvariantCulture, out int value) && value > 0 ? value : DefaultScale;

    /// <summary>The other tests' count: restarts, instances and bulk are about mechanism, not volume.</summary>
    public static int SmallDocuments => Math.Min(Documents, SmallScale);

    public static JObject Document(int index, int version) => new()
    {
        ["id"] = DocumentId(index),
        ["pk"] = "p" + (index % 7).ToString(CultureInfo.InvariantCulture),
        ["name"] = "n" + index.ToString(CultureInfo.InvariantCulture),
        ["ssn"] = Ssn(index, version),
        ["salary"] = (index * 1000) + version,
        ["version"] = version,
    };

    public static string DocumentId(int index) => "d" + index.ToString("D5", CultureInfo.InvariantCulture);

    public static string Ssn(int index, int version) => string.Create(CultureInfo.InvariantCulture, $"ssn-{index}-v{version}");

    public static PartitionKey PartitionKeyOf(JObject document) => new((string)document["pk"]!);

    public static EncryptionMigrationOptions Options(string instanceName = "a") => new()
    {
        InstanceName = instanceName,
        PollInterval = TimeSpan.FromMilliseconds(200),
        ProgressInterval = TimeSpan.FromMilliseconds(300),
        MaxItemsPerBatch = 50,
    };

    /// <summary>Adds <paramref name="keyIds"/> to the keys the job may read documents with; returns <paramref name="options"/>.</summary>
    public static EncryptionMigrationOptions Accepting(EncryptionMigrationOptions options, params string[] keyIds)
    {
        foreach (string id in keyIds)
        {
            options.AcceptedSourceDataEncryptionKeyIds.Add(id);
        }

        return options;
    }

    /// <summary>Creates <paramref name="count"/> documents (version 0), in plaintext or through <paramref name="container"/>'s encryption.</summary>
    public static async Task SeedAsync(Container container, int count, CancellationToken cancellationToken, ItemRequestOptions? options = null)
    {
        for (int start = 0; start < count; start += 25)
        {
            await Task.WhenAll(Enumerable.Range(start, Math.Min(25, count - start)).Select(async i =>
            {
                JObject document = Document(i, 0);
                await container.CreateItemAsync(document, PartitionKeyOf(document), options, cancellationToken);
            }));
        }
    }

    /// <summary>Every stored document, as the service holds it (no decryption), by id.</summary>
    public static async Task<Dictionary<string, JObject>> ReadStoredAsync(Container raw, CancellationToken cancellationToken)
    {
        var documents = new Dictionary<string, JObject>();
        using FeedIterator<JObject> iterator = raw.GetItemQueryIterator<JObject>("SELECT * FROM c");
        while (iterator.HasMoreResults)
        {
            foreach (JObject document in await iterator.ReadNextAsync(cancellationToken))
            {
                documents[(string)document["id"]!] = document;
            }
        }

        return documents;
    }

    /// <summary>
    /// That the lease container holds no change feed lease and no activity record: nothing but the shared survey's
    /// records (a refused run surveyed the container, through the lease container, and started no processor).
    /// </summary>
    public static async Task AssertNoLeaseAsync(Container leases, CancellationToken cancellationToken)
    {
        Dictionary<string, JObject> stored = await ReadStoredAsync(leases, cancellationToken);
        Assert.All(stored.Values, record => Assert.StartsWith("encryption-migration-survey", (string?)record["kind"] ?? "(a lease)", StringComparison.Ordinal));
    }

    /// <summary>Every document read through <paramref name="container"/> (decrypting), by id.</summary>
    public static Task<Dictionary<string, JObject>> ReadDecryptedAsync(Container container, CancellationToken cancellationToken) =>
        ReadStoredAsync(container, cancellationToken);

    /// <summary>Runs <paramref name="job"/> to its end, cancelling it (and so failing the test) after <see cref="RunBound"/>.</summary>
    public static async Task<EncryptionMigrationResult> RunAsync(EncryptionMigrationJob job, CancellationToken cancellationToken, IProgress<EncryptionMigrationProgress>? progress = null)
    {
        using var bound = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        bound.CancelAfter(RunBound);
        return await job.RunAsync(progress, bound.Token);
    }

    /// <summary>
    /// Runs two instances that share a lease container, <paramref name="second"/> from <paramref name="first"/>'s first
    /// progress report that counts a document seen: by then the first's processor initialized the lease container and
    /// holds a lease. Started at the same instant, the instance that loses the SDK's race for the lease container's
    /// initialization lock sleeps 15 s before it looks again (the change feed processor's bootstrap), which was most of
    /// such a run's time; from then on, the second finds the leases there and takes its share of them. Not from the first
    /// report itself: the processor acquires its leases after it starts, and a second instance started before that could
    /// take every lease (a slow first instance then had nothing left to be slow on). <paramref name="progress"/> sees
    /// both instances' reports.
    /// </summary>
    public static async Task<EncryptionMigrationResult[]> RunSecondOnFirstReportAsync(
        EncryptionMigrationJob first, EncryptionMigrationJob second, CancellationToken cancellationToken, IProgress<EncryptionMigrationProgress>? progress = null)
    {
        var holdsALease = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task<EncryptionMigrationResult> firstRun = RunAsync(first, cancellationToken, OnceALeaseIsHeld(holdsALease, progress));
        await Task.WhenAny(holdsALease.Task, firstRun);
        Task<EncryptionMigrationResult> secondRun = RunAsync(second, cancellationToken, progress);
        return await Task.WhenAll(firstRun, secondRun);
    }

    /// <summary>
    /// A progress that completes <paramref name="holdsALease"/> at the first report that counts a document seen (the
    /// instance then holds a lease), passing every report on to <paramref name="progress"/>.
    /// </summary>
    public static InlineProgress OnceALeaseIsHeld(TaskCompletionSource holdsALease, IProgress<EncryptionMigrationProgress>? progress = null) => new(report =>
    {
        if (report.DocumentsSeen > 0)
        {
            holdsALease.TrySetResult();
        }

        progress?.Report(report);
    });

    /// <summary>
    /// A new container of <paramref name="database"/> whose partition key definition is hash version 2: the bundled
    /// server spreads it over several ranges (Emulator/README.md), so its change feed has several leases.
    /// </summary>
    public static async Task<Container> MultiRangeContainerAsync(Database database, string partitionKeyPath, CancellationToken cancellationToken)
    {
        var properties = new ContainerProperties("c-" + Guid.NewGuid().ToString("N"), partitionKeyPath) { PartitionKeyDefinitionVersion = PartitionKeyDefinitionVersion.V2 };
        return (await database.CreateContainerAsync(properties, cancellationToken: cancellationToken)).Container;
    }

    /// <summary>The stored key id of a document, or null when it is not encrypted.</summary>
    public static string? KeyId(JObject stored) => stored["_ei"] is JObject envelope ? (string?)envelope["_en"] : null;
}

/// <summary>An <see cref="IProgress{T}"/> that runs its callback on the reporting thread (no synchronization context).</summary>
internal sealed class InlineProgress(Action<EncryptionMigrationProgress> onReport) : IProgress<EncryptionMigrationProgress>
{
    public ConcurrentQueue<EncryptionMigrationProgress> Reports { get; } = new();

    public void Report(EncryptionMigrationProgress value)
    {
        Reports.Enqueue(value);
        onReport(value);
    }
}
