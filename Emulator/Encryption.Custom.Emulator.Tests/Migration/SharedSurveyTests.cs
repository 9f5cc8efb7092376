using Encryption.Custom.Emulator.Tests.Encryption;
using Encryption.Custom.Emulator.Tests.Hosting;
using Encryption.Custom.Json.Inspection;
using Encryption.Custom.Migration;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// The survey before the first write, shared by a job's instances through the lease container (docs/migration.md
/// "Scans shared by the instances"): each feed range is surveyed by one instance, an instance that starts later reads
/// the recorded survey instead of the container, a dead instance's claim is taken over, a split after the round began
/// still leaves each document surveyed once, and a survey for another target is not reused.
/// </summary>
public sealed class SharedSurveyTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    // The number of the job's latest verification round: rounds are numbered from 1 and each one verified the container.
    private static async Task<int> VerificationRoundsAsync(Container leases)
    {
        Dictionary<string, Newtonsoft.Json.Linq.JObject> stored = await ReadStoredAsync(leases, Ct);
        return stored.Values.Where(record => (string?)record["kind"] == RangeScanRecords.VerificationKind).Select(record => (int)record["round"]!).DefaultIfEmpty(0).Max();
    }

    private static ContainerEncryptionPolicy Target => new(EncryptionFixture.Dek1, Paths) { PlaintextPolicy = PlaintextPolicy.WriteEncryptedForbidPlaintext };

    [Fact]
    public async Task ThreeInstancesStartedTogether_SurveyEachDocumentOnce_AndMigrateEachOnce()
    {
        int count = SmallDocuments;
        Container raw = await MultiRangeContainerAsync(fixture.Database, "/pk", Ct);
        Container leases = await MultiRangeContainerAsync(fixture.Database, "/id", Ct);
        await SeedAsync(raw, count, Ct);
        await using var a = new EncryptionMigrationJob(raw, fixture.Encryptor, Target, leases, Options("a"));
        await using var b = new EncryptionMigrationJob(raw, fixture.Encryptor, Target, leases, Options("b"));
        await using var c = new EncryptionMigrationJob(raw, fixture.Encryptor, Target, leases, Options("c"));

        EncryptionMigrationResult[] results = await Task.WhenAll(RunAsync(a, Ct), RunAsync(b, Ct), RunAsync(c, Ct));

        Assert.All(results, r => Assert.True(r.Completed));
        Assert.Equal(count, a.SurveyedDocuments + b.SurveyedDocuments + c.SurveyedDocuments);
        Assert.Equal(count, results.Sum(r => r.Progress.DocumentsRewritten));

        // Each verification round read the container once between the instances that used it, not once per instance.
        EncryptionMigrationJob[] jobs = [a, b, c];
        long verified = jobs.Sum(job => job.VerifiedDocuments);
        int rounds = await VerificationRoundsAsync(leases);
        Assert.True(rounds >= 1, "no verification round recorded");
        Assert.Equal(rounds * (long)count, verified);
        Assert.True(jobs.Sum(job => job.VerificationRounds) > rounds, $"no instance shared a round ({rounds} rounds, each instance's own)");
        Assert.All(results, r => Assert.Equal(count, r.Verification!.DocumentsInTargetState));
        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(raw, Target, Ct);
        Assert.Equal((count, count), (status.TotalDocuments, status.DocumentsInTargetState));
    }

    [Fact]
    public async Task ASecondInstanceStartedLater_ReusesTheSurvey_AndMigratesItsShare()
    {
        int count = SmallDocuments;
        Container raw = await MultiRangeContainerAsync(fixture.Database, "/pk", Ct);
        Container leases = await MultiRangeContainerAsync(fixture.Database, "/id", Ct);
        await SeedAsync(raw, count, Ct);
        await using var first = new EncryptionMigrationJob(raw, fixture.Encryptor, Target, leases, Options("a"));
        await using var second = new EncryptionMigrationJob(raw, fixture.Encryptor, Target, leases, Options("b"));

        EncryptionMigrationResult[] results = await RunSecondOnFirstReportAsync(first, second, Ct);

        Assert.All(results, r => Assert.True(r.Completed));
        Assert.Equal((count, 0L), (first.SurveyedDocuments, second.SurveyedDocuments));
        Assert.Equal(count, results.Sum(r => r.Progress.DocumentsRewritten));
        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(raw, Target, Ct);
        Assert.Equal(count, status.DocumentsInTargetState);
    }

    [Fact]
    public async Task ARecordedSurvey_StillRefusesALaterInstanceWithoutThePermission_AndAnotherTargetSurveysAgain()
    {
        // Count documents encrypting /ssn and /salary under DEK1; a target that keeps /ssn only decrypts /salary.
        const int Count = 20;
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await SeedAsync(raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, Paths) }), Count, Ct);
        var dropsSalary = new ContainerEncryptionPolicy(EncryptionFixture.Dek2, ["/ssn"]);

        // The first instance is refused too, but its survey is recorded: the second reads it and is refused by it.
        EncryptionMigrationOptions Refusing(string name)
        {
            EncryptionMigrationOptions options = Accepting(Options(name), EncryptionFixture.Dek1);
            options.ProcessorName = "job";
            return options;
        }

        await using var first = new EncryptionMigrationJob(raw, fixture.Encryptor, dropsSalary, leases, Refusing("a"));
        await using var second = new EncryptionMigrationJob(raw, fixture.Encryptor, dropsSalary, leases, Refusing("b"));
        await Assert.ThrowsAsync<EncryptionException>(() => RunAsync(first, Ct));
        EncryptionException refused = await Assert.ThrowsAsync<EncryptionException>(() => RunAsync(second, Ct));

        Assert.Equal((EncryptionErrorKind.InvalidOptions, "/salary"), (refused.Kind, refused.Path));
        Assert.Contains($"decrypt /salary in {Count} document(s)", refused.Message, StringComparison.Ordinal);
        Assert.Equal((Count, 0L), (first.SurveyedDocuments, second.SurveyedDocuments));
        await AssertNoLeaseAsync(leases, Ct);

        // Same job name, another target: another survey (its fingerprint differs), read from the container.
        EncryptionMigrationOptions allowed = Refusing("c");
        allowed.AllowedDecryptPaths.Add("/salary");
        await using var third = new EncryptionMigrationJob(raw, fixture.Encryptor, new ContainerEncryptionPolicy(EncryptionFixture.Dek1, ["/ssn"]), leases, allowed);
        EncryptionMigrationResult result = await RunAsync(third, Ct);
        Assert.True(result.Completed);
        Assert.Equal(Count, third.SurveyedDocuments);
    }

    [Fact]
    public async Task ADeadInstancesClaim_IsTakenOver_AndASplitAfterTheRoundBegan_LeavesEachDocumentSurveyedOnce()
    {
        int count = SmallDocuments;
        Container raw = await MultiRangeContainerAsync(fixture.Database, "/pk", Ct);
        Container leases = await MultiRangeContainerAsync(fixture.Database, "/id", Ct);
        await SeedAsync(raw, count, Ct);
        var request = new SurveyRequest(raw, DocumentInspector.For(JsonProcessor.Stream), 64, fixture.Encryptor, [EncryptionFixture.Dek1], Target);
        string fingerprint = RangeScanRecords.Fingerprint("db/c", Target, [EncryptionFixture.Dek1], "test");
        var records = new RangeScanRecords(leases, RangeScanRecords.SurveyKind, "job", fingerprint, budget: null, TimeProvider.System) { IsResult = ContainerSurvey.IsRecord };
        Func<CancellationToken, Task<IReadOnlyList<FeedRange>>> ranges = raw.GetFeedRangesAsync;

        // A dead instance opened the round and claimed a range, then never renewed its claim.
        ScanRound round = await records.OpenRoundAsync(ranges, Ct);
        Assert.True(round.Ranges.Count > 1, "one range: the case is not the one tested");
        Assert.NotNull(await records.TryClaimAsync(round, new RangeRecord(0, null, RangeRecordState.Missing, null), "dead", Ct));

        // The range holding the most documents splits: the round's ranges stay as recorded (parents), each child's
        // documents surveyed within its parent.
        Assert.Equal(fixture.Endpoint.IsBundled, await PartitionSplits.SplitAsync(fixture.Endpoint, raw, cancellationToken: Ct));

        async Task<RangeScanResult> SurveyAsync(FeedRange range, CancellationToken token)
        {
            ContainerSurvey part = await ContainerSurvey.RunAsync(request with { Range = range }, budget: null, TimeProvider.System, token);
            return new RangeScanResult(part.TotalDocuments, part.WriteTo);
        }

        var survey = new SharedRangeScan(records, new RangeClaims("a", TimeSpan.FromSeconds(2), TimeProvider.System), SurveyAsync, TimeProvider.System);
        (_, IReadOnlyList<System.Text.Json.JsonElement> parts) = await survey.RunAsync("a", ranges, after: 0, TimeSpan.FromMilliseconds(200), Ct);
        ContainerSurvey merged = ContainerSurvey.Merge(parts, Target);

        Assert.Equal(count, merged.TotalDocuments);
        Assert.Equal(count, merged.UnencryptedDocuments);
        Assert.Equal(count, survey.DocumentsScanned);
        Assert.Equal(round.Ranges.Count, survey.RangesRecorded);

        // Read again by another instance: merged from the records, nothing scanned.
        var later = new SharedRangeScan(records, new RangeClaims("b", TimeSpan.FromSeconds(2), TimeProvider.System), (_, _) => throw new InvalidOperationException("scanned"), TimeProvider.System);
        (_, IReadOnlyList<System.Text.Json.JsonElement> again) = await later.RunAsync("b", ranges, after: 0, TimeSpan.FromMilliseconds(200), Ct);
        ContainerSurvey reused = ContainerSurvey.Merge(again, Target);
        Assert.Equal((count, 0L), (reused.TotalDocuments, later.DocumentsScanned));
        Assert.Equal(merged.DocumentsWithValues["/ssn"], reused.DocumentsWithValues["/ssn"]);
    }

    // A lone instance surveys its claimed ranges at once (the job's SurveyParallelism), claiming them from one read of the
    // records: the scans overlap, never more than the parallelism, and each document is still surveyed exactly once.
    [Fact]
    public async Task ALoneInstance_SurveysSeveralRangesAtOnce_WithinItsParallelism_EachDocumentOnce()
    {
        int count = SmallDocuments;
        Container raw = await MultiRangeContainerAsync(fixture.Database, "/pk", Ct);
        Container leases = await MultiRangeContainerAsync(fixture.Database, "/id", Ct);
        await SeedAsync(raw, count, Ct);
        var request = new SurveyRequest(raw, DocumentInspector.For(JsonProcessor.Stream), 64, fixture.Encryptor, [EncryptionFixture.Dek1], Target);
        var records = new RangeScanRecords(leases, RangeScanRecords.SurveyKind, "job", RangeScanRecords.Fingerprint("db/c", Target, [EncryptionFixture.Dek1], "test"), budget: null, TimeProvider.System)
        {
            IsResult = ContainerSurvey.IsRecord,
        };
        int running = 0;
        int most = 0;

        async Task<RangeScanResult> SurveyAsync(FeedRange range, CancellationToken token)
        {
            int now = Interlocked.Increment(ref running);
            InterlockedMax(ref most, now);
            try
            {
                ContainerSurvey part = await ContainerSurvey.RunAsync(request with { Range = range }, budget: null, TimeProvider.System, token);
                await Task.Delay(TimeSpan.FromMilliseconds(300), token); // long enough for the next claims to start beside it
                return new RangeScanResult(part.TotalDocuments, part.WriteTo);
            }
            finally
            {
                Interlocked.Decrement(ref running);
            }
        }

        var survey = new SharedRangeScan(records, new RangeClaims("a", TimeSpan.FromSeconds(30), TimeProvider.System), SurveyAsync, TimeProvider.System)
        {
            Parallelism = EncryptionMigrationJob.SurveyParallelism,
        };
        (ScanRound round, IReadOnlyList<System.Text.Json.JsonElement> parts) = await survey.RunAsync("a", raw.GetFeedRangesAsync, after: 0, TimeSpan.FromMilliseconds(200), Ct);

        Assert.True(round.Ranges.Count > 1, "one range: the case is not the one tested");
        Assert.InRange(most, 2, Math.Min(EncryptionMigrationJob.SurveyParallelism, round.Ranges.Count));
        Assert.Equal((long)count, ContainerSurvey.Merge(parts, Target).TotalDocuments);
        Assert.Equal((count, round.Ranges.Count), (survey.DocumentsScanned, survey.RangesRecorded));
    }

    private static void InterlockedMax(ref int location, int value)
    {
        int seen;
        do
        {
            seen = Volatile.Read(ref location);
            if (value <= seen)
            {
                return;
            }
        }
        while (Interlocked.CompareExchange(ref location, value, seen) != seen);
    }
}
