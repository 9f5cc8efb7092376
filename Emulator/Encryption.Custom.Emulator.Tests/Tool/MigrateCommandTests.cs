using System.Text.Json;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Tool;

/// <summary>
/// <c>cosmos-encryption migrate</c> and <c>status</c> end to end against the endpoint, as an operator runs them
/// (account key in <c>COSMOS_KEY</c>, the KEK as a file), checked against what the service stores. The tool runs in
/// process (<see cref="ToolInProcess"/>: its entry point, minus process start-up) except in the kill test, which
/// needs a real process to SIGKILL. Documents come from <see cref="Migration.MigrationScenario"/> (ids <c>d00000…</c>, /ssn and
/// /salary encrypted).
/// </summary>
public sealed class MigrateCommandTests(ToolFixture fixture) : MigrateCommandScenario(fixture), IClassFixture<ToolFixture>
{
    [Fact]
    public async Task MigrateAndStatus_PlaintextToEncryptedThenRotation_EveryDocumentMovesAndStatusCountsIt()
    {
        const int Count = 120;
        Container raw = await Fixture.CreateContainerAsync(Ct);
        await SeedAsync(raw, Count, Ct);
        string leases = NewLeaseContainer();

        JsonElement before = await StatusAsync(raw, ["--dek-id", ToolFixture.Dek1, .. Target]);
        ToolResult encrypt = (await RunAsync([.. Fixture.MigrateArguments(raw, leases), "--dek-id", ToolFixture.Dek1, .. Target])).AssertSuccess();
        JsonElement encrypted = await StatusAsync(raw, ["--dek-id", ToolFixture.Dek1, .. Target]);
        ToolResult rotate = (await RunAsync([.. Fixture.MigrateArguments(raw, leases), "--dek-id", ToolFixture.Dek2, .. Target, "--accept-dek", ToolFixture.Dek1, "--job-name", "rotate", "--bulk"])).AssertSuccess();
        JsonElement rotated = await StatusAsync(raw, ["--dek-id", ToolFixture.Dek2, .. Target]);

        Assert.Equal((Count, Count, Count, 0), (Number(before, "documents"), Number(before, "plaintext"), Number(before, "outsideTargetState"), Number(before, "inTargetState")));
        Assert.Equal(Count, ProgressLine.Count(encrypt.Last("done"), "rewritten"));
        Assert.Equal($"verified: documents={Count} inTargetState={Count} outsideTargetState=0", encrypt.Lines[^1]);
        Assert.Equal((Count, 0, 0, 0), (Number(encrypted, "inTargetState"), Number(encrypted, "plaintext"), Number(encrypted, "otherPaths"), Number(encrypted, "unencrypted")));
        Assert.Equal([(ToolFixture.Dek1, Count)], DekCounts(encrypted));
        Assert.Equal(Count, ProgressLine.Count(rotate.Last("done"), "rewritten"));
        Assert.Equal([(ToolFixture.Dek2, Count)], DekCounts(rotated));
        Assert.False(rotated.GetProperty("encryptionTypesChecked").GetBoolean());
        await AssertEveryDocumentAsync(raw, ToolFixture.Dek2, Count);
        AssertNoPlaintext(Count, encrypt, rotate);
    }

    [Fact]
    public async Task Migrate_DocumentUnderUnacceptedDek_IsListedLeftAsItWasAndExitCodeIsFour()
    {
        const int Count = 30;
        Container raw = await Fixture.CreateContainerAsync(Ct);
        await SeedAsync(raw, Count, Ct);
        Container dek3Writer = raw.WithEncryptor(Fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy(ToolFixture.Dek3) });
        JObject foreign = Document(Count, 0);
        await dek3Writer.CreateItemAsync(foreign, PartitionKeyOf(foreign), cancellationToken: Ct);
        JObject storedBefore = (await ReadStoredAsync(raw, Ct))[DocumentId(Count)];

        ToolResult run = await RunAsync([.. Fixture.MigrateArguments(raw, NewLeaseContainer()), "--dek-id", ToolFixture.Dek1, .. Target]);

        string error = run.AssertFailure(4, "DocumentsFailed");
        Assert.Contains("1 document(s) could not be migrated", error, StringComparison.Ordinal);
        string failure = Assert.Single(run.Lines, l => l.StartsWith("failed:", StringComparison.Ordinal));
        Assert.StartsWith($"failed: id=\"{DocumentId(Count)}\" partitionKey=", failure, StringComparison.Ordinal);
        Assert.Contains("kind=KeyNotAccepted", failure, StringComparison.Ordinal);
        JObject storedAfter = (await ReadStoredAsync(raw, Ct))[DocumentId(Count)];
        Assert.Equal((string)storedBefore["_etag"]!, (string)storedAfter["_etag"]!);
        Assert.Equal(Count, ProgressLine.Count(run.Last("done"), "rewritten"));
        AssertNoPlaintext(Count + 1, run);
    }

    /// <summary>
    /// The killed process: SIGKILL once progress shows documents done, then the same command again. The
    /// container starts with documents already in the target state ahead of the plaintext ones in the change feed:
    /// a rerun that resumed from the checkpoints does not read them again, one that started over reads them all
    /// (the latest-version change feed moves every rewritten document to its end, so only documents that needed
    /// no rewrite tell the two apart).
    /// </summary>
    [Fact]
    public async Task Migrate_Interrupted_StopsCleanlyWithExitCodeOneAndTheSameCommandFinishes()
    {
        const int Count = 200;
        Container raw = await Fixture.CreateContainerAsync(Ct);
        await SeedAsync(raw, Count, Ct);
        string[] migrate = [.. Fixture.MigrateArguments(raw, NewLeaseContainer()), "--dek-id", ToolFixture.Dek1, .. Target, "--batch-size", "20"];

        // 5 RU/s makes the first run need about 40 s for all 200 documents, so the stop requested after the first 20
        // always finds it running. In process, the stop is the cancellation Ctrl+C and SIGTERM trigger (the signal
        // handler only cancels the same token source: MigrateCommand.Stop).
        using var stop = new CancellationTokenSource();
        ToolResult interrupted = await ToolInProcess.RunAsync(Fixture.Endpoint, [.. migrate, "--budget", "5"], RunBound, line =>
        {
            if (line.StartsWith("progress:", StringComparison.Ordinal) && ProgressLine.Count(ProgressLine.Parse(line), "rewritten") >= 20)
            {
                stop.Cancel();
            }
        }, cancellationToken: stop.Token);

        ToolResult rerun = (await RunAsync(migrate)).AssertSuccess();

        string error = interrupted.AssertFailure(1, "Cancelled");
        Assert.Contains("run the same command again to resume", error, StringComparison.Ordinal);
        long before = ProgressLine.Count(interrupted.Last("stopped"), "rewritten");
        Assert.InRange(before, 20, Count - 1);
        Assert.Equal(Count - before, ProgressLine.Count(rerun.Last("done"), "rewritten"));
        await AssertEveryDocumentAsync(raw, ToolFixture.Dek1, Count);
    }
}
