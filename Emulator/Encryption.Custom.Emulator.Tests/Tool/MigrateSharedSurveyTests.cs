using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Tool;

/// <summary>
/// <c>migrate</c> surveys through the lease container as the library's job does (docs/migration.md, "Scans shared by
/// the instances"): two processes of one job, started together as real child processes, survey each document once
/// between them (each prints the container's count and the documents it read itself, <c>read=</c>) and rewrite each
/// once; a process of the same job started afterwards reads the recorded survey and reads no document for it.
/// </summary>
public sealed class MigrateSharedSurveyTests(ToolFixture fixture) : MigrateCommandScenario(fixture), IClassFixture<ToolFixture>
{
    [Fact]
    public async Task TwoProcessesOfOneJob_SurveyEachDocumentOnceBetweenThem_AndALaterOneReusesTheSurvey()
    {
        const int Count = 150;
        Container raw = await Fixture.CreateContainerAsync(Ct);    // hash v2: several ranges
        await SeedAsync(raw, Count, Ct);
        string leases = NewLeaseContainer();    // not created here: each process creates it if missing, before its survey
        string[] args = [.. Fixture.MigrateArguments(raw, leases), "--dek-id", ToolFixture.Dek1, .. Target];

        using ToolProcess first = ToolProcess.Start(Fixture.Endpoint, args);
        using ToolProcess second = ToolProcess.Start(Fixture.Endpoint, args);
        ToolResult[] together = [(await first.WaitAsync(RunBound)).AssertSuccess(), (await second.WaitAsync(RunBound)).AssertSuccess()];
        ToolResult later = (await RunAsync(args)).AssertSuccess();

        Dictionary<string, string>[] surveys = [.. together.Select(run => ProgressLine.Parse(Assert.Single(run.Lines, l => l.StartsWith("survey:", StringComparison.Ordinal))))];
        Assert.All(surveys, survey => Assert.Equal(Count, ProgressLine.Count(survey, "documents")));
        Assert.Equal(Count, surveys.Sum(survey => ProgressLine.Count(survey, "read")));
        Assert.Equal(Count, together.Sum(run => ProgressLine.Count(run.Last("done"), "rewritten")));
        // The recorded survey (of the container before the run, reused within the hour): nothing read for it.
        Assert.StartsWith($"survey: documents={Count} unencrypted={Count} unreadable=0", later.Lines[0], StringComparison.Ordinal);
        Assert.EndsWith(" read=0", later.Lines[0], StringComparison.Ordinal);
        Assert.Equal(0, ProgressLine.Count(later.Last("done"), "rewritten"));
        await AssertEveryDocumentAsync(raw, ToolFixture.Dek1, Count);
    }
}
