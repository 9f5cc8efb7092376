using System.Text.Json;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Tool;

/// <summary>
/// <c>cosmos-encryption migrate</c> as a real child process killed with SIGKILL mid-run, then run again: the rerun
/// resumes from the lease container's checkpoints and every document ends in the target state. Its own class so that
/// its real-time wait runs beside the other migrate tests (<see cref="MigrateCommandScenario"/>).
/// </summary>
public sealed class MigrateKillTests(ToolFixture fixture) : MigrateCommandScenario(fixture), IClassFixture<ToolFixture>
{
    [Fact]
    public async Task Migrate_KilledMidRunThenRerun_FinishesFromCheckpointsWithEveryDocumentIntact()
    {
        const int InTarget = 150;
        const int Plaintext = 300;
        Container raw = await Fixture.CreateContainerAsync(Ct);
        Container targetWriter = raw.WithEncryptor(Fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy(ToolFixture.Dek1) });
        await SeedInTargetAsync(targetWriter, InTarget);
        await SeedAsync(raw, Plaintext, Ct);
        string leases = NewLeaseContainer();
        string[] migrate = [.. Fixture.MigrateArguments(raw, leases), "--dek-id", ToolFixture.Dek1, .. Target, "--batch-size", "20"];

        // A budget slow enough that the kill lands mid-run (about one request unit per rewrite on the bundled endpoint:
        // some 30 s for the 300), however slowly a loaded machine delivers the progress lines.
        await KillAfterAsync([.. migrate, "--budget", "10", "--parallelism", "4"], rewritten: 40);

        Dictionary<string, JObject> afterKill = await ReadStoredAsync(raw, Ct);
        int rewrittenBeforeKill = afterKill.Values.Count(d => ((string)d["id"]!).StartsWith('d') && KeyId(d) is not null);
        Assert.InRange(rewrittenBeforeKill, 40, Plaintext - 1);
        Assert.Contains(await LeaseDocumentsAsync(leases), l => l["ContinuationToken"]?.Type == JTokenType.String && (string)l["ContinuationToken"]! != string.Empty);

        ToolResult rerun = (await RunAsync(migrate)).AssertSuccess();

        IReadOnlyDictionary<string, string> done = rerun.Last("done");
        long seen = ProgressLine.Count(done, "seen");
        long rewritten = ProgressLine.Count(done, "rewritten");

        // Started over, the rerun would see every in-target document, each plaintext one still there, and every
        // rewrite of both runs: InTarget + 2 * Plaintext - rewrittenBeforeKill. Resumed, it skips the in-target ones.
        long startedOver = InTarget + (2L * Plaintext) - rewrittenBeforeKill;
        TestContext.Current.SendDiagnosticMessage($"Killed after {rewrittenBeforeKill} rewrites; the rerun saw {seen} documents (starting over: {startedOver}).");
        Assert.True(seen <= startedOver - (InTarget / 2), $"The rerun saw {seen} documents; starting over it would see {startedOver}.");
        Assert.Equal(Plaintext - rewrittenBeforeKill, rewritten);
        await AssertEveryDocumentAsync(raw, ToolFixture.Dek1, Plaintext, InTarget);
    }
}
