using Encryption.Custom.Emulator.Tests.Encryption;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// <see cref="EncryptionMigrationJob"/>'s throughput budget end to end: the measured rate stays under the cap, and the job
/// still reports done while an application writes faster than the budget lets the job go.
/// </summary>
public sealed class MigrationBudgetTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    // The writer's pace: two writers, one upsert each per 20 ms at most (up to 100 RU/s on the bundled endpoint, ten
    // times the budget of 10; a loaded machine was seen to hold them to 18), stopped after two minutes by themselves
    // (the job takes seconds).
    private static readonly TimeSpan s_writerInterval = TimeSpan.FromMilliseconds(20);
    private static readonly TimeSpan s_writerBound = TimeSpan.FromMinutes(2);

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static ContainerEncryptionPolicy Policy(string dek, PlaintextPolicy mode = PlaintextPolicy.WriteEncryptedForbidPlaintext) =>
        new(dek, Paths) { PlaintextPolicy = mode };

    private async Task<(Container Raw, Container Leases)> ContainersAsync()
    {
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        return (raw, leases);
    }

    [Fact]
    public async Task Budget_KeepsTheMeasuredRequestUnitRateUnderTheCap()
    {
        int count = Math.Min(SmallDocuments, 150);
        const double Cap = 40;
        var meter = new ChargeMeter();
        CosmosClientOptions clientOptions = fixture.Endpoint.CreateClientOptions();
        clientOptions.CustomHandlers.Add(meter);
        using var client = new CosmosClient(fixture.Endpoint.Uri.ToString(), fixture.Endpoint.Key, clientOptions);
        (Container created, Container leases) = await ContainersAsync();
        await SeedAsync(created, count, Ct);
        Container raw = client.GetContainer(fixture.Database.Id, created.Id);

        EncryptionMigrationOptions options = Options();
        options.RequestUnitsPerSecond = Cap;
        await using var job = new EncryptionMigrationJob(raw, fixture.Encryptor, Policy(EncryptionFixture.Dek1), leases, options);
        meter.Start();
        EncryptionMigrationResult result = await RunAsync(job, Ct);
        (double charged, TimeSpan elapsed) = meter.Stop();

        Assert.True(result.Completed);
        Assert.Equal(count, result.Progress.DocumentsRewritten);

        // The bucket banks at most one second of budget, and requests already let through may each be charged once more.
        double allowed = (Cap * (elapsed.TotalSeconds + 1)) + options.MaxDegreeOfParallelism;
        Assert.True(charged <= allowed, $"{charged} RU in {elapsed.TotalSeconds:F1} s exceeds the cap of {Cap} RU/s (allowed {allowed:F0}).");
    }

    [Fact]
    public async Task WriterFasterThanTheBudget_WritingInTheTargetState_JobReportsDoneOnceAVerificationFindsEveryDocumentThere()
    {
        // The application writes in the target state (the rollout's policy) at a sustained rate above the job's
        // budget, so the feed never runs dry and the estimator's lag stays above zero. Done must still come: its own
        // rewrites stop, a verification finds every document in the target state, and the writer's changes (already
        // there) do not hold it back. The writer updates the even documents only, so the odd half is the job's to
        // rewrite under its budget. It runs until the job has returned, paced by time and stopped by its own bound.
        // When to verify is the CompletionRule's (its unit tests cover each case on made-up reports) and the bucket's
        // pace is RequestUnitBudgetTests'; this run is what those cannot show: the real estimator's lag under a real
        // writer, and the job's own feed, rewrites and verification through the SDK. A budget of 5 RU/s made it a
        // 30-45 s run for the same proof (the estimator's reads, charged to the budget too, took most of it); 20 left
        // too little room above it for the writer on a loaded machine.
        const int Count = 40;
        const double Budget = 10;
        (Container raw, Container leases) = await ContainersAsync();
        await SeedAsync(raw, Count, Ct);
        Container writerView = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy(EncryptionFixture.Dek1, PlaintextPolicy.WriteEncryptedReadBoth) });
        SustainedWriter writer = SustainedWriter.Start(writerView, Count, seed: 29, s_writerInterval, s_writerBound);

        EncryptionMigrationOptions options = Options();
        options.RequestUnitsPerSecond = Budget;
        var progress = new InlineProgress(_ => { });
        EncryptionMigrationResult result;
        bool writerStillWriting;
        await using (writer)
        {
            await using var job = new EncryptionMigrationJob(raw, fixture.Encryptor, Policy(EncryptionFixture.Dek1), leases, options);
            result = await RunAsync(job, Ct, progress);
            writerStillWriting = writer.IsWriting;
        }

        double writerRate = writer.RequestUnitsPerSecond;
        TestContext.Current.SendDiagnosticMessage(
            $"Writer: {writer.Writes} writes, {writerRate:F0} RU/s against a budget of {Budget}; job: {result.Progress.Elapsed.TotalSeconds:F1} s, {result.Progress.DocumentsRewritten} rewritten, lag {result.Progress.EstimatedLag}.");

        Assert.True(writerStillWriting, "The writer stopped before the job returned: the test did not hold the job under load.");
        Assert.True(writerRate > Budget, $"The writer ran at {writerRate:F0} RU/s, not above the budget of {Budget}.");
        Assert.True(result.Completed);
        Assert.Empty(result.Failures);
        Assert.InRange(result.Progress.DocumentsRewritten, Count / 2, Count);
        Assert.Equal((Count, 0L), (result.Verification!.DocumentsInTargetState, result.Verification.DocumentsOutsideTargetState));
        Assert.Contains(progress.Reports, report => report.EstimatedLag > 0);
        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(raw, fixture.Encryptor, Policy(EncryptionFixture.Dek1), Ct);
        Assert.Equal(Count, status.DocumentsInTargetState);
    }

    /// <summary>Sums the request charge of every response through its client while started, with the time span.</summary>
    private sealed class ChargeMeter : RequestHandler
    {
        private readonly Lock _lock = new();
        private bool _started;
        private double _charged;
        private DateTime _first;
        private DateTime _last;

        public void Start()
        {
            lock (_lock)
            {
                _started = true;
            }
        }

        public (double Charged, TimeSpan Elapsed) Stop()
        {
            lock (_lock)
            {
                _started = false;
                return (_charged, _last - _first);
            }
        }

        public override async Task<ResponseMessage> SendAsync(RequestMessage request, CancellationToken cancellationToken)
        {
            ResponseMessage response = await base.SendAsync(request, cancellationToken);
            lock (_lock)
            {
                if (_started)
                {
                    DateTime now = DateTime.UtcNow;
                    if (_charged == 0)
                    {
                        _first = now;
                    }

                    _charged += response.Headers.RequestCharge;
                    _last = now;
                }
            }

            return response;
        }
    }
}
