using Encryption.Custom.Emulator.Tests.Migration;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Tool;

/// <summary>
/// <c>migrate</c> with an application writing faster than the run's <c>--budget</c> (docs/tool.md "Progress"): the run
/// says <c>done</c> once a verification finds every document in the target state, and each progress line counts the
/// rewritten documents against the container's documents and says what the run is waiting for.
/// </summary>
public sealed class MigrateUnderWriterTests(ToolFixture fixture) : IClassFixture<ToolFixture>
{
    private const int Count = 60;
    private const int Budget = 10;
    private static readonly TimeSpan s_stopAfter = TimeSpan.FromMinutes(2);
    private static readonly TimeSpan s_runBound = TimeSpan.FromMinutes(3);

    // Two writers, one upsert each per 20 ms at most (up to 100 RU/s on the bundled endpoint, ten times --budget 10; a
    // loaded machine was seen to hold them to 18), stopped by themselves after longer than the run may take.
    private static readonly TimeSpan s_writerInterval = TimeSpan.FromMilliseconds(20);
    private static readonly TimeSpan s_writerBound = TimeSpan.FromMinutes(4);

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Migrate_WriterAboveTheBudgetInTheTargetState_SaysDoneWithProgressAgainstTheContainersDocuments()
    {
        Container raw = await fixture.CreateContainerAsync(Ct);
        await SeedAsync(raw, Count, Ct);
        var policy = new ContainerEncryptionPolicy(ToolFixture.Dek1, Paths) { PlaintextPolicy = PlaintextPolicy.WriteEncryptedReadBoth };
        Container writerView = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = policy });

        // The application updates the even documents, encrypting them itself; the odd half is the run's to rewrite.
        SustainedWriter writer = SustainedWriter.Start(writerView, Count, seed: 31, s_writerInterval, s_writerBound);

        string[] migrate = [.. fixture.MigrateArguments(raw, "leases-" + Guid.NewGuid().ToString("N")), "--dek-id", ToolFixture.Dek1, "--path", "/ssn", "--path", "/salary", "--budget", Budget.ToString(System.Globalization.CultureInfo.InvariantCulture)];
        // Bounded: after two minutes the run is stopped (as Ctrl+C would), so it ends "stopped" and the test fails.
        using var bound = CancellationTokenSource.CreateLinkedTokenSource(Ct);
        bound.CancelAfter(s_stopAfter);
        ToolResult run;
        bool writerStillWriting;
        await using (writer)
        {
            run = await ToolInProcess.RunAsync(fixture.Endpoint, migrate, s_runBound, cancellationToken: bound.Token);
            writerStillWriting = writer.IsWriting;
        }

        double writerRate = writer.RequestUnitsPerSecond;
        TestContext.Current.SendDiagnosticMessage($"Writer: {writer.Writes} writes at {writerRate:F0} RU/s against --budget {Budget}; the run printed {run.Lines.Count} lines.");

        Assert.True(run.ExitCode == 0, $"exit code {run.ExitCode}; last lines: {string.Join(" | ", run.Lines.TakeLast(4))}; {run.Error}");
        Assert.True(writerStillWriting, "The writer stopped before the run ended: the test did not hold the run under load.");
        Assert.True(writerRate > Budget, $"The writer ran at {writerRate:F0} RU/s, not above --budget {Budget}.");

        // Each progress line: rewritten of the documents the container held, and why it is not done yet.
        string[] progress = [.. run.Lines.Where(line => line.StartsWith("progress:", StringComparison.Ordinal))];
        Assert.NotEmpty(progress);
        Assert.All(progress, line =>
        {
            Dictionary<string, string> values = ProgressLine.Parse(line);
            Assert.Equal(Count, ProgressLine.Count(values, "documents"));
            Assert.InRange(ProgressLine.Count(values, "rewritten"), 0, Count);
            Assert.Contains(values["waiting"], new[] { "start", "feed", "verification" });
        });
        Assert.Contains(progress, line => ProgressLine.Parse(line)["waiting"] == "feed");
        Assert.InRange(ProgressLine.Count(run.Last("done"), "rewritten"), Count / 2, Count);
        Assert.Equal($"verified: documents={Count} inTargetState={Count} outsideTargetState=0", run.Lines[^1]);
    }
}
