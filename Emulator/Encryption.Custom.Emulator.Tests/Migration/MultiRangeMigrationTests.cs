using Encryption.Custom.Emulator.Tests.Encryption;
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

    private async Task<Container> MultiRangeContainerAsync(string partitionKeyPath)
    {
        var properties = new ContainerProperties("c-" + Guid.NewGuid().ToString("N"), partitionKeyPath)
        {
            PartitionKeyDefinitionVersion = PartitionKeyDefinitionVersion.V2, // several ranges on the bundled server
        };
        return (await fixture.Database.CreateContainerAsync(properties, cancellationToken: Ct)).Container;
    }

    [Fact]
    public async Task TwoInstances_WithASplitInTheMiddle_MigrateEveryDocumentOnce()
    {
        int count = SmallDocuments;
        Container raw = await MultiRangeContainerAsync("/pk");
        Container leases = await MultiRangeContainerAsync("/id");
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
}
