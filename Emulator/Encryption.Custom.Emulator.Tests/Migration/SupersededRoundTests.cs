using Encryption.Custom.Emulator.Tests.Encryption;
using Encryption.Custom.Migration;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// The records of shared-scan rounds another round has superseded are deleted once the newer round is merged
/// (docs/migration.md "Scans shared by the instances"): only range records of this job's, fingerprint's and round id's
/// earlier rounds that have not been written for the grace; never the round record, a record naming another job, one
/// written within the grace, or the current round's.
/// </summary>
public sealed class SupersededRoundTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task MergingRoundTwo_DeletesRoundOnesRangeRecords_ButNotTheRoundRecordNorAForeignOne()
    {
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await SeedAsync(raw, 10, Ct);
        RangeScanRecords records = Records(leases, grace: TimeSpan.Zero);

        // Round 1, merged; then round 2 (a later verification), merged: round 1's range records are superseded.
        (ScanRound first, _) = await Scan(records, "a").RunAsync("a", raw.GetFeedRangesAsync, after: 0, TimeSpan.FromMilliseconds(200), Ct);
        List<JObject> roundOne = RangeRecords(await ReadStoredAsync(leases, Ct), first.Number);
        Assert.NotEmpty(roundOne);

        // A record shaped like round 1's but naming another job: never this job's to delete.
        JObject foreign = (JObject)roundOne[0].DeepClone();
        foreach (string system in new[] { "_rid", "_self", "_etag", "_ts", "_attachments" })
        {
            foreign.Remove(system);
        }

        foreign["id"] = foreign["partitionKey"] = "foreign-" + Guid.NewGuid().ToString("N");
        foreign["processor"] = "another-job";
        await leases.CreateItemAsync(foreign, new PartitionKey((string)foreign["id"]!), cancellationToken: Ct);
        await Task.Delay(TimeSpan.FromSeconds(1.1), Ct); // the service's _ts is in whole seconds

        (ScanRound second, _) = await Scan(records, "b").RunAsync("b", raw.GetFeedRangesAsync, after: first.Number, TimeSpan.FromMilliseconds(200), Ct);

        Dictionary<string, JObject> stored = await ReadStoredAsync(leases, Ct);
        Assert.Equal(first.Number + 1, second.Number);
        Assert.DoesNotContain(RangeRecords(stored, first.Number), record => (string?)record["processor"] == "job");
        Assert.Equal(second.Ranges.Count, RangeRecords(stored, second.Number).Count);
        Assert.Contains((string)foreign["id"]!, stored.Keys);
        Assert.Single(stored.Values, record => (string?)record["kind"] == RangeScanRecords.VerificationKind && (int)record["round"]! == second.Number);
    }

    [Fact]
    public async Task ASupersededRoundWrittenWithinTheGrace_IsLeft()
    {
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await SeedAsync(raw, 10, Ct);
        RangeScanRecords records = Records(leases, grace: TimeSpan.FromMinutes(10));

        (ScanRound first, _) = await Scan(records, "a").RunAsync("a", raw.GetFeedRangesAsync, after: 0, TimeSpan.FromMilliseconds(200), Ct);
        int before = RangeRecords(await ReadStoredAsync(leases, Ct), first.Number).Count;
        (ScanRound second, _) = await Scan(records, "a").RunAsync("a", raw.GetFeedRangesAsync, after: first.Number, TimeSpan.FromMilliseconds(200), Ct);

        Assert.Equal(first.Number + 1, second.Number);
        Assert.Equal(0, await records.DeleteSupersededAsync(second, Ct));
        Assert.Equal(before, RangeRecords(await ReadStoredAsync(leases, Ct), first.Number).Count);
    }

    private static RangeScanRecords Records(Container leases, TimeSpan grace) =>
        new(leases, RangeScanRecords.VerificationKind, "job", "fingerprint", budget: null, TimeProvider.System) { SupersededGrace = grace };

    // A shared scan whose range result is the count of the range's documents (what the records hold does not matter here).
    private static SharedRangeScan Scan(RangeScanRecords records, string owner) =>
        new(records, new RangeClaims(owner, TimeSpan.FromSeconds(30), TimeProvider.System), (_, _) => Task.FromResult(new RangeScanResult(0, writer => writer.WriteNumberValue(0))), TimeProvider.System);

    private static List<JObject> RangeRecords(Dictionary<string, JObject> stored, int round) =>
        [.. stored.Values.Where(record => (string?)record["kind"] == RangeScanRecords.VerificationKind + "-range" && (int)record["round"]! == round)];
}
