using System.Text.Json;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Tool;

/// <summary>
/// <c>cosmos-encryption status --target-container</c> as a real child process: where a copy stands, printed as one
/// line of JSON, with exit code 5 (<c>CopyIncomplete</c>) until every source document is in the target as it is in
/// the source, and again once the source changes after the copy.
/// </summary>
public sealed class StatusCopyCommandTests(ToolFixture fixture) : MigrateCommandScenario(fixture), IClassFixture<ToolFixture>
{
    [Fact]
    public async Task StatusCopy_BeforeAfterAndBehindTheCopy_PrintsTheCountsAndExitsNonZeroUntilComplete()
    {
        const int Count = 40;
        Container source = await Fixture.CreateContainerAsync(Ct);
        Container target = await Fixture.CreateContainerAsync(Ct);
        await SeedAsync(source, Count, Ct);
        string[] keys = ["--dek-container", ToolFixture.DekContainer, "--kek-file", Fixture.KekFile, "--dek-id", ToolFixture.Dek1, .. Target];
        string[] status = ["status", .. Fixture.ContainerArguments(source), "--target-container", target.Id, .. keys];

        ToolResult before = await ToolProcess.RunAsync(Fixture.Endpoint, status, RunBound);
        string error = before.AssertFailure(5, "CopyIncomplete");
        Assert.Contains($"{Count} missing from the target", error, StringComparison.Ordinal);
        JsonElement empty = Single(before);
        Assert.Equal((Count, 0L, Count, 0L, false), (Number(empty, "sourceDocuments"), Number(empty, "copied"), Number(empty, "missing"), Number(empty, "different"), empty.GetProperty("complete").GetBoolean()));
        Assert.Equal(0, Number(empty.GetProperty("target"), "documents"));

        (await RunAsync([.. Fixture.MigrateArguments(source, NewLeaseContainer()), "--target-container", target.Id, "--dek-id", ToolFixture.Dek1, .. Target])).AssertSuccess();

        ToolResult after = (await ToolProcess.RunAsync(Fixture.Endpoint, status, RunBound)).AssertSuccess();
        JsonElement complete = Single(after);
        Assert.Equal((Count, Count, 0L, 0L, 0L, true), (Number(complete, "sourceDocuments"), Number(complete, "copied"), Number(complete, "missing"), Number(complete, "different"), Number(complete, "onlyInTarget"), complete.GetProperty("complete").GetBoolean()));
        Assert.Equal((Count, Count), (Number(complete.GetProperty("target"), "documents"), Number(complete.GetProperty("target"), "inTargetState")));

        // The source moves on after the copy (no copy job follows it now): the status says so, in counts only.
        await source.UpsertItemAsync(Document(3, 1), PartitionKeyOf(Document(3, 1)), cancellationToken: Ct);
        ToolResult behind = await ToolProcess.RunAsync(Fixture.Endpoint, status, RunBound);
        error = behind.AssertFailure(5, "CopyIncomplete");
        Assert.DoesNotContain(Ssn(3, 1), error + behind.Output, StringComparison.Ordinal);
        JsonElement stale = Single(behind);
        Assert.Equal((Count - 1, 1L, false), (Number(stale, "copied"), Number(stale, "different"), stale.GetProperty("complete").GetBoolean()));
    }

    private static JsonElement Single(ToolResult run) => JsonDocument.Parse(Assert.Single(run.Lines)).RootElement;
}
