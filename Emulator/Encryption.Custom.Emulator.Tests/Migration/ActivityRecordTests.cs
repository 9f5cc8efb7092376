using System.Text;
using Encryption.Custom.Emulator.Tests.Encryption;
using Encryption.Custom.Emulator.Tests.Hosting;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// An instance's activity record (docs/migration.md, "Several instances") that cannot be parsed is refused: the
/// instance that reads it stops with a message naming the record, and sweeps nothing, rather than judge whether the
/// job is done without one instance's counts.
/// </summary>
public sealed class ActivityRecordTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    /// <summary>
    /// A record of the job's processor name whose <c>work</c> is a string (as a newer or damaged writer might leave
    /// it). The instance started second, once the first has seen a document (so holds a lease), reads the records as
    /// soon as it is quiet while the first still holds leases (the first is slowed by a tight budget so that it does):
    /// it fails closed. The first is then stopped.
    /// </summary>
    [Fact]
    public async Task AnUnreadableRecord_StopsTheInstanceThatReadsIt_WithItsId_AndNothingIsSwept()
    {
        Container raw = await MultiRangeContainerAsync(fixture.Database, "/pk", Ct);
        Container leases = await MultiRangeContainerAsync(fixture.Database, "/id", Ct);
        await SeedAsync(raw, SmallDocuments, Ct);
        const string bogus = "encryption-migration-activity-unreadable";
        string record = $$"""{"id":"{{bogus}}","partitionKey":"{{bogus}}","kind":"encryption-migration-activity","processor":"{{EncryptionMigrationOptions.DefaultProcessorName}}","instance":"old","work":"many","reports":1,"intervalSeconds":1}""";
        using (var body = new MemoryStream(Encoding.UTF8.GetBytes(record)))
        using (ResponseMessage created = await leases.CreateItemStreamAsync(body, new PartitionKey(bogus), cancellationToken: Ct))
        {
            created.EnsureSuccessStatusCode();
        }

        var policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, Paths);
        var logs = new CapturedLogs();
        EncryptionMigrationOptions slowOptions = Options("b");
        slowOptions.LoggerFactory = logs;
        slowOptions.RequestUnitsPerSecond = 20;
        slowOptions.MaxDegreeOfParallelism = 1;
        EncryptionMigrationOptions readerOptions = Options("a");
        readerOptions.LoggerFactory = logs;
        await using var slow = new EncryptionMigrationJob(raw, fixture.Encryptor, policy, leases, slowOptions);
        await using var reader = new EncryptionMigrationJob(raw, fixture.Encryptor, policy, leases, readerOptions);

        using var stopSlow = CancellationTokenSource.CreateLinkedTokenSource(Ct);
        var holdsALease = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        // Not from its first report: its processor may hold no lease yet then, and the reader, started at once, took every
        // lease, migrated everything alone and never read the records (CI, 2026-11-29).
        Task<EncryptionMigrationResult> slowRun = RunAsync(slow, stopSlow.Token, OnceALeaseIsHeld(holdsALease));
        await Task.WhenAny(holdsALease.Task, slowRun);
        InvalidOperationException refused = await Assert.ThrowsAsync<InvalidOperationException>(() => RunAsync(reader, Ct));
        await stopSlow.CancelAsync();
        try
        {
            await slowRun; // stopped (not completed), or refused the same record itself
        }
        catch (InvalidOperationException)
        {
        }

        Assert.Contains("activity record", refused.Message, StringComparison.Ordinal);
        Assert.Contains(bogus, refused.Message, StringComparison.Ordinal);
        Assert.Contains("cannot read", refused.Message, StringComparison.Ordinal);
        Assert.Contains("nothing was swept", refused.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(logs.Entries, entry => entry.EventName == "MigrationSweep");
    }
}
