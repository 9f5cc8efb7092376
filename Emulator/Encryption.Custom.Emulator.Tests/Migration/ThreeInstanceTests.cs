using System.Collections.Concurrent;
using Encryption.Custom.Emulator.Tests.Encryption;
using Encryption.Custom.Emulator.Tests.Hosting;
using Encryption.Custom.Emulator.Tests.Infrastructure;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// Issue 36's conformance run of several instances (docs/migration.md, "Several instances"): three instances over a
/// container of several ranges, the fullest range split in the middle of the run, with and without an application
/// writing beside them. Every document ends in the target state, each rewritten once (without the writer: the
/// rewrites add up to the document count), no update of the writer lost, no instance's verification migrating what
/// another instance's leases cover (no sweep), and without the writer at most 1.1 request units per document over all
/// three instances besides the conflicts they redo (the bundled endpoint charges 1 RU a request: every request the
/// job made, its records and verification included).
/// </summary>
public sealed class ThreeInstanceTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    // Enough documents that the instances' fixed requests (surveys, verification, records, the estimator at each
    // report) are a small part of the charge, as in a real migration; the run takes a few seconds on loopback.
    private const int Count = 3000;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static ContainerEncryptionPolicy Target => new(EncryptionFixture.Dek1, Paths) { PlaintextPolicy = PlaintextPolicy.WriteEncryptedForbidPlaintext };

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ThreeInstances_WithASplit_MigrateEachDocumentOnce_LoseNoUpdate_AndNoneSweeps(bool withWriter)
    {
        Container raw = await MultiRangeContainerAsync(fixture.Database, "/pk", Ct);
        Container leases = await MultiRangeContainerAsync(fixture.Database, "/id", Ct);
        await SeedAsync(raw, Count, Ct);
        var logs = new CapturedLogs();
        EncryptionMigrationJob[] jobs = [.. "abc".Select(name =>
        {
            EncryptionMigrationOptions options = Options(name.ToString());
            options.LoggerFactory = logs;
            // The defaults' page size (the scenario's 50 doubles the feed pages) and reports every 2 s (the default is 5 s;
            // each idle report asks the estimator, 9 requests for 8 ranges): with pages of 50 and reports every second
            // this run measured 1.087-1.089 RU per document, with these 1.067-1.070 (2026-11-29).
            options.MaxItemsPerBatch = EncryptionMigrationOptions.DefaultMaxItemsPerBatch;
            options.ProgressInterval = TimeSpan.FromSeconds(2);
            return new EncryptionMigrationJob(raw, fixture.Encryptor, Target, leases, options);
        })];

        // The writer: the rollout's state during the migration (writes encrypted, reads either), each write a new version.
        Container writerView = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, Paths) { PlaintextPolicy = PlaintextPolicy.WriteEncryptedReadBoth } });
        var lastSsn = new ConcurrentDictionary<string, string>();
        using var stopWriter = CancellationTokenSource.CreateLinkedTokenSource(Ct);
        Task writing = !withWriter ? Task.CompletedTask : Task.Run(async () =>
        {
            var random = new Random(36);
            var versions = new int[Count];
            while (!stopWriter.IsCancellationRequested)
            {
                int i = random.Next(Count);
                JObject document = Document(i, ++versions[i]);
                await writerView.UpsertItemAsync(document, PartitionKeyOf(document), cancellationToken: CancellationToken.None);
                lastSsn[DocumentId(i)] = (string)document["ssn"]!;
            }
        }, CancellationToken.None);

        // The split: once a third of the documents are rewritten, by whichever instance's report sees it first.
        long[] rewritten = new long[jobs.Length];
        Task<bool>? split = null;
        var gate = new object();
        IProgress<EncryptionMigrationProgress> Observed(int instance) => new InlineProgress(report =>
        {
            lock (gate)
            {
                rewritten[instance] = report.DocumentsRewritten;
                if (split is null && rewritten.Sum() >= Count / 3)
                {
                    split = PartitionSplits.SplitAsync(fixture.Endpoint, raw, cancellationToken: Ct);
                }
            }
        });

        var holdsALease = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task<EncryptionMigrationResult> first = RunAsync(jobs[0], Ct, OnceALeaseIsHeld(holdsALease, Observed(0)));
        await Task.WhenAny(holdsALease.Task, first);
        EncryptionMigrationResult[] results = await Task.WhenAll(first, RunAsync(jobs[1], Ct, Observed(1)), RunAsync(jobs[2], Ct, Observed(2)));
        await stopWriter.CancelAsync();
        await writing;
        foreach (EncryptionMigrationJob job in jobs)
        {
            await job.DisposeAsync();
        }

        Assert.All(results, r => Assert.True(r.Completed));
        Assert.All(results, r => Assert.Empty(r.Failures));
        Assert.NotNull(split);
        Assert.True(await split, "the fullest range did not split");
        Assert.DoesNotContain(logs.Entries, entry => entry.EventName == "MigrationSweep");
        long total = results.Sum(r => r.Progress.DocumentsRewritten);
        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(raw, Target, Ct);
        Assert.Equal((Count, Count), (status.TotalDocuments, status.DocumentsInTargetState));
        Dictionary<string, JObject> read = await ReadDecryptedAsync(raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = Target }), Ct);
        Assert.All(Enumerable.Range(0, Count), i => Assert.Equal(lastSsn.GetValueOrDefault(DocumentId(i), Ssn(i, 0)), (string)read[DocumentId(i)]["ssn"]!));
        if (withWriter)
        {
            Assert.True(lastSsn.Count > 0, "the writer wrote nothing while the job ran");
            Assert.InRange(total, 0, Count); // the writer's upserts are in the target state already: the job skips them
        }
        else
        {
            Assert.Equal(Count, total);

            // At most 1.1 request units per document, apart from the conflicts the instances redo (a replace that lost to
            // another instance's rewrite, 412, then a point read: two requests each). Conflicts come from lease steals
            // and help while an owner still holds a page, and their count depends on scheduling (0 to 132 in runs of
            // this test on a loaded machine); the scaling runs at 12,000 and 30,000 documents meet 1.1 with them
            // (docs/benchmarks.md, "Migration scaling at 30,000 documents"). Their number is bounded here too.
            long conflicts = results.Sum(r => r.Progress.Conflicts);
            double perDocument = results.Sum(r => r.Progress.RequestUnits) / Count;
            double conflictCost = 2.0 * conflicts / Count;
            Assert.True(conflicts <= Count / 10, $"{conflicts} conflicts redone of {Count} documents");
            Assert.True(perDocument - conflictCost <= 1.1, $"{perDocument:F3} RU per document over the three instances, {conflictCost:F3} of them for {conflicts} conflicts redone: {perDocument - conflictCost:F3} (at most 1.1)");
        }
    }
}
