using System.Diagnostics;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Tool;

/// <summary>
/// Two instances share a migration: <c>cosmos-encryption migrate</c> as a real child process and the library's job in
/// this process, both with <see cref="EncryptionMigrationOptions.LeaseExpirationInterval"/> 5 s. The child is killed
/// (SIGKILL) while each instance holds leases: its leases stay owned by a dead instance, nothing releases them, and the
/// survivor takes them over once they expire, then finishes with every document in the target state. Its own class so
/// that its real-time wait runs beside the other migrate tests.
/// </summary>
public sealed class MigrateInstanceKilledTests(ToolFixture fixture) : MigrateCommandScenario(fixture), IClassFixture<ToolFixture>
{
    private static readonly TimeSpan s_expiration = TimeSpan.FromSeconds(5);
    private static readonly TimeSpan s_acquire = TimeSpan.FromSeconds(2);

    // Until the whole run gives up: seeding, the child's start, the kill, the takeover and the survivor's end take
    // some 25 s on a quiet machine.
    private static readonly TimeSpan s_testBound = TimeSpan.FromSeconds(90);

    [Fact]
    public async Task InstanceKilled_TheOtherTakesOverItsLeasesOnceTheyExpire_AndFinishesEveryDocument()
    {
        const int Plaintext = 300;
        using var bound = CancellationTokenSource.CreateLinkedTokenSource(Ct);
        bound.CancelAfter(s_testBound);
        CancellationToken ct = bound.Token;
        Container raw = await Fixture.CreateContainerAsync(ct);    // hash v2: three ranges, so three leases
        await SeedAsync(raw, Plaintext, ct);
        string leaseName = NewLeaseContainer();
        string seconds = s_expiration.TotalSeconds.ToString(System.Globalization.CultureInfo.InvariantCulture);

        // The child: slow (about ten rewrites a second), so that it still has work behind every lease it holds when killed.
        var working = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using ToolProcess child = ToolProcess.Start(
            Fixture.Endpoint,
            [.. Fixture.MigrateArguments(raw, leaseName), "--dek-id", ToolFixture.Dek1, .. Target, "--batch-size", "10", "--budget", "10",
             "--parallelism", "2", "--lease-expiration", seconds],
            line =>
            {
                if (line.StartsWith("progress:", StringComparison.Ordinal) && ProgressLine.Count(ProgressLine.Parse(line), "rewritten") >= 10)
                {
                    working.TrySetResult();
                }
            });
        string childOwner = Environment.MachineName + "-" + child.Id.ToString(System.Globalization.CultureInfo.InvariantCulture);
        await working.Task.WaitAsync(ct);

        // The survivor, started beside it: the same job (lease container, processor name) and the same expiration.
        const string Survivor = "survivor";
        EncryptionMigrationOptions options = Options(Survivor);
        options.LeaseExpirationInterval = s_expiration;
        options.LeaseAcquireInterval = s_acquire;
        options.ProgressInterval = TimeSpan.FromSeconds(1);
        Container leases = Fixture.Database.GetContainer(leaseName);
        await using var survivor = new EncryptionMigrationJob(raw, Fixture.Encryptor, Policy(ToolFixture.Dek1), leases, options);
        Task<EncryptionMigrationResult> survivorRun = survivor.RunAsync(progress: null, ct);

        // Killed once the work is shared: the survivor's balancing has taken a lease and the child still holds others.
        IReadOnlyList<(string Token, string? Owner)> shared = await WaitForOwnersAsync(
            leases, owners => owners.Any(o => o.Owner == Survivor) && owners.Any(o => o.Owner == childOwner), survivorRun, ct);
        child.Kill();
        var sinceKill = Stopwatch.StartNew();
        ToolResult killed = await child.WaitAsync(RunBound);
        Assert.NotEqual(0, killed.ExitCode);
        Assert.DoesNotContain(killed.Lines, l => l.StartsWith("done:", StringComparison.Ordinal));

        // The dead instance's leases: nothing released them, so they are still its own right after the kill.
        IReadOnlyList<(string Token, string? Owner)> afterKill = await LeaseOwnersAsync(leases, ct);
        string[] orphaned = [.. afterKill.Where(o => o.Owner == childOwner).Select(o => o.Token)];
        Assert.NotEmpty(orphaned);

        // Taken over within the expiration (counted from the last renewal, before the kill), one balancing round to see
        // it expired and one more for a round that lost a race, plus room for a loaded machine. With the SDK's 60 s
        // (the option not passed on) this bound fails.
        TimeSpan takeoverBound = s_expiration + (2 * s_acquire) + TimeSpan.FromSeconds(10);
        IReadOnlyList<(string Token, string? Owner)> takenOver = await WaitForOwnersAsync(
            leases, owners => orphaned.All(token => owners.Any(o => o.Token == token && o.Owner == Survivor)), survivorRun, ct, takeoverBound, endMayProve: true);
        TimeSpan takeover = sinceKill.Elapsed;
        if (survivorRun.IsCompleted)
        {
            // The survivor finished between two looks (having helped with the dead instance's documents before its
            // leases expired, little was left once it took them). It does not finish while leases are held by an
            // instance that writes no activity record (it waits for them as for a killed one), and an expired lease
            // keeps the dead owner's name until another instance takes it: the leases no longer naming the dead
            // instance, within the bound, is the takeover.
            Assert.InRange(takeover, TimeSpan.Zero, takeoverBound);
            Assert.DoesNotContain(await LeaseOwnersAsync(leases, ct), o => orphaned.Contains(o.Token) && o.Owner == childOwner);
        }

        TestContext.Current.SendDiagnosticMessage(
            $"Shared before the kill: {Describe(shared)}; the dead instance's {orphaned.Length} lease(s) taken over {takeover.TotalSeconds:0.0} s after the kill: {Describe(takenOver)}.");

        EncryptionMigrationResult result = await survivorRun.WaitAsync(ct);
        Assert.True(result.Completed, $"The survivor did not complete: {result.Progress.DocumentsRewritten} rewritten, {result.Progress.DocumentsFailed} failed.");
        Assert.Equal(0, result.Progress.DocumentsFailed);
        Assert.DoesNotContain(await LeaseOwnersAsync(leases, ct), o => o.Owner == childOwner);
        await AssertEveryDocumentAsync(raw, ToolFixture.Dek1, Plaintext);
    }

    // Polls the leases until `done` holds (returning them), the survivor's run ends first, or `within` passes.
    private static async Task<IReadOnlyList<(string Token, string? Owner)>> WaitForOwnersAsync(
        Container leases,
        Func<IReadOnlyList<(string Token, string? Owner)>, bool> done,
        Task survivorRun,
        CancellationToken cancellationToken,
        TimeSpan? within = null,
        bool endMayProve = false)
    {
        var elapsed = Stopwatch.StartNew();
        TimeSpan limit = within ?? RunBound;
        IReadOnlyList<(string Token, string? Owner)> owners = [];
        while (elapsed.Elapsed < limit)
        {
            owners = await LeaseOwnersAsync(leases, cancellationToken);
            if (done(owners))
            {
                return owners;
            }

            if (endMayProve && survivorRun.IsCompleted)
            {
                return owners; // the caller proves the takeover from the leases' checkpoints
            }

            Assert.False(survivorRun.IsCompleted, $"The survivor's run ended while the leases were {Describe(owners)}.");
            await Task.Delay(TimeSpan.FromMilliseconds(200), cancellationToken);
        }

        Assert.Fail($"Not within {limit.TotalSeconds:0} s; the leases: {Describe(owners)}.");
        return owners;
    }

    // The change feed processor's lease documents (they carry a LeaseToken; the store's markers and the job's activity
    // records do not), with their owners.
    private static async Task<IReadOnlyList<(string Token, string? Owner)>> LeaseOwnersAsync(Container leases, CancellationToken cancellationToken)
    {
        var owners = new List<(string, string?)>();
        using FeedIterator<JObject> iterator = leases.GetItemQueryIterator<JObject>("SELECT * FROM c");
        while (iterator.HasMoreResults)
        {
            foreach (JObject lease in await iterator.ReadNextAsync(cancellationToken))
            {
                if (lease["LeaseToken"]?.Type == JTokenType.String)
                {
                    owners.Add(((string)lease["LeaseToken"]!, lease["Owner"]?.Type == JTokenType.String ? (string)lease["Owner"]! : null));
                }
            }
        }

        return owners;
    }

    private static string Describe(IReadOnlyList<(string Token, string? Owner)> owners) =>
        owners.Count == 0 ? "none" : string.Join(", ", owners.Select(o => $"{o.Token}:{o.Owner ?? "(none)"}"));
}
