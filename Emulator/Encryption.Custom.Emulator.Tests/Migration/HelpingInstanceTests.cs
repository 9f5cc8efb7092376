using Encryption.Custom.Emulator.Tests.Encryption;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// An instance whose leases are drained helps the instances that still have documents behind theirs (docs/migration.md,
/// "Scaling with instances"): a slow instance (a tight budget) holds most leases, a fast one joins, drains the lease
/// its balancing took, then rewrites documents behind the slow one's leases, newest first. Every document is still
/// rewritten once over both, and the container ends in the target state.
/// </summary>
public sealed class HelpingInstanceTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static ContainerEncryptionPolicy Target => new(EncryptionFixture.Dek1, Paths);

    [Fact]
    public async Task AnInstanceWithItsLeasesDrained_HelpsTheSlowOne_AndEachDocumentIsRewrittenOnce()
    {
        const int Count = 300;
        var properties = new ContainerProperties("c-" + Guid.NewGuid().ToString("N"), "/pk") { PartitionKeyDefinitionVersion = PartitionKeyDefinitionVersion.V2 };
        Container raw = (await fixture.Database.CreateContainerAsync(properties, cancellationToken: Ct)).Container;
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await SeedAsync(raw, Count, Ct);

        // A helper takes only documents written before the second the survey began (service time, whole seconds): the
        // seeded ones must be older than that.
        await Task.Delay(TimeSpan.FromSeconds(1.5), Ct);

        // The slow instance: about 15 requests a second, so it still has most documents ahead when the fast one is done
        // with the lease it takes. The fast one balances once at its start (a long acquire interval): one lease.
        // Pages of 10: a helper stays two of the owner's pages (and a parallelism) short of it, so a range of about 100
        // documents leaves it room.
        EncryptionMigrationOptions slowOptions = Options("slow");
        slowOptions.RequestUnitsPerSecond = 15;
        slowOptions.MaxItemsPerBatch = 10;
        EncryptionMigrationOptions fastOptions = Options("fast");
        fastOptions.LeaseAcquireInterval = TimeSpan.FromMinutes(10);
        fastOptions.MaxItemsPerBatch = 10;
        await using var slow = new EncryptionMigrationJob(raw, fixture.Encryptor, Target, leases, slowOptions);
        await using var fast = new EncryptionMigrationJob(raw, fixture.Encryptor, Target, leases, fastOptions);

        EncryptionMigrationResult[] results = await RunSecondOnFirstReportAsync(slow, fast, Ct);

        Assert.All(results, r => Assert.True(r.Completed));
        Assert.Equal(Count, results.Sum(r => r.Progress.DocumentsRewritten));
        Assert.True(fast.HelpedDocuments > 0, "the fast instance never helped");
        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(raw, Target, Ct);
        Assert.Equal((Count, Count), (status.TotalDocuments, status.DocumentsInTargetState));
    }
}
