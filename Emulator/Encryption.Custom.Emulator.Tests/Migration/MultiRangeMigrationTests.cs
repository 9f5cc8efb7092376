using Encryption.Custom.Emulator.Tests.Encryption;
using Encryption.Custom.Emulator.Tests.Hosting;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// <see cref="EncryptionMigrationJob"/> over a container with several partition key ranges, one of which
/// splits while two instances share the work: the change feed processor underneath holds one lease per
/// range and hands the split range's lease on to its children, and the job still rewrites every document
/// exactly once.
/// </summary>
public sealed class MultiRangeMigrationTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task TwoInstances_WithASplitInTheMiddle_MigrateEveryDocumentOnce()
    {
        int count = SmallDocuments;
        Container raw = await MultiRangeContainerAsync(fixture.Database, "/pk", Ct);
        Container leases = await MultiRangeContainerAsync(fixture.Database, "/id", Ct);
        await SeedAsync(raw, count, Ct);
        var policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, Paths) { PlaintextPolicy = PlaintextPolicy.WriteEncryptedForbidPlaintext };

        // The first progress report (of either instance, while the processors run) splits the range holding the
        // most documents.
        Task<bool>? split = null;
        var gate = new object();
        var progress = new InlineProgress(_ =>
        {
            lock (gate)
            {
                split ??= PartitionSplits.SplitAsync(fixture.Endpoint, raw, cancellationToken: Ct);
            }
        });
        await using var a = new EncryptionMigrationJob(raw, fixture.Encryptor, policy, leases, Options("a"));
        await using var b = new EncryptionMigrationJob(raw, fixture.Encryptor, policy, leases, Options("b"));
        EncryptionMigrationResult[] results = await RunSecondOnFirstReportAsync(a, b, Ct, progress);

        Assert.NotNull(split);
        Assert.Equal(fixture.Endpoint.IsBundled, await split);
        Assert.All(results, r => Assert.True(r.Completed));
        Assert.Equal(count, results.Sum(r => r.Progress.DocumentsRewritten));
        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(raw, policy, Ct);
        Assert.Equal(count, status.TotalDocuments);
        Assert.Equal(count, status.DocumentsInTargetState);
        Dictionary<string, Newtonsoft.Json.Linq.JObject> stored = await ReadStoredAsync(raw, Ct);
        Assert.All(stored.Values, document => Assert.Equal(EncryptionFixture.Dek1, KeyId(document)));
    }

    /// <summary>
    /// Issue 36's slowdown: one instance drained its leases while the other, slower (a tight request-unit budget),
    /// still had most of its own ahead. The fast one used to look for "done" on its own idleness, find the slow one's
    /// documents outside the target state and rewrite them itself, racing the slow one's feed. Now it waits while any
    /// instance of the job is still working: no instance sweeps, and each document is rewritten once. The slow one
    /// starts first and takes every lease; the fast one, started on its first report, takes a lease from it.
    /// </summary>
    [Fact]
    public async Task TwoInstances_OneSlow_TheFastOneWaitsForTheJob_NoneSweepsTheOthersDocuments()
    {
        int count = Documents;
        Container raw = await MultiRangeContainerAsync(fixture.Database, "/pk", Ct);
        Container leases = await MultiRangeContainerAsync(fixture.Database, "/id", Ct);
        await SeedAsync(raw, count, Ct);
        var policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, Paths) { PlaintextPolicy = PlaintextPolicy.WriteEncryptedForbidPlaintext };
        var logs = new CapturedLogs();
        // Reports a second apart (not 300 ms): "did nothing since the last report" must not be a pause of the slow
        // instance on a loaded machine.
        EncryptionMigrationOptions fastOptions = Options("a");
        fastOptions.LoggerFactory = logs;
        fastOptions.ProgressInterval = TimeSpan.FromSeconds(1);
        EncryptionMigrationOptions slowOptions = Options("b");
        slowOptions.LoggerFactory = logs;
        slowOptions.ProgressInterval = TimeSpan.FromSeconds(1);
        slowOptions.RequestUnitsPerSecond = 40;
        slowOptions.MaxDegreeOfParallelism = 2;

        await using var fast = new EncryptionMigrationJob(raw, fixture.Encryptor, policy, leases, fastOptions);
        await using var slow = new EncryptionMigrationJob(raw, fixture.Encryptor, policy, leases, slowOptions);
        EncryptionMigrationResult[] results = await RunSecondOnFirstReportAsync(slow, fast, Ct);

        Assert.All(results, r => Assert.True(r.Completed));
        Assert.True(results[1].Progress.DocumentsRewritten > 0, "the fast instance took no lease: the case is not the one tested");
        Assert.Equal(count, results.Sum(r => r.Progress.DocumentsRewritten));
        Assert.DoesNotContain(logs.Entries, entry => entry.EventName == "MigrationSweep");
        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(raw, policy, Ct);
        Assert.Equal(count, status.DocumentsInTargetState);
        Assert.Equal(count, status.TotalDocuments);
    }
}
