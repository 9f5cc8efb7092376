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
[StartsFirst]
public sealed class MigrateCommandTests(ToolFixture fixture) : IClassFixture<ToolFixture>
{
    private static readonly TimeSpan s_runBound = TimeSpan.FromMinutes(2);
    private static readonly string[] s_target = ["--path", "/ssn", "--path", "/salary"];

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static ContainerEncryptionPolicy Policy(string dek) => new(dek, Paths);

    private static string NewLeaseContainer() => "leases-" + Guid.NewGuid().ToString("N");

    [Fact]
    public async Task MigrateAndStatus_PlaintextToEncryptedThenRotation_EveryDocumentMovesAndStatusCountsIt()
    {
        const int Count = 120;
        Container raw = await fixture.CreateContainerAsync(Ct);
        await SeedAsync(raw, Count, Ct);
        string leases = NewLeaseContainer();

        JsonElement before = await StatusAsync(raw, ["--dek-id", ToolFixture.Dek1, .. s_target]);
        ToolResult encrypt = (await RunAsync([.. fixture.MigrateArguments(raw, leases), "--dek-id", ToolFixture.Dek1, .. s_target])).AssertSuccess();
        JsonElement encrypted = await StatusAsync(raw, ["--dek-id", ToolFixture.Dek1, .. s_target]);
        ToolResult rotate = (await RunAsync([.. fixture.MigrateArguments(raw, leases), "--dek-id", ToolFixture.Dek2, .. s_target, "--accept-dek", ToolFixture.Dek1, "--job-name", "rotate", "--bulk"])).AssertSuccess();
        JsonElement rotated = await StatusAsync(raw, ["--dek-id", ToolFixture.Dek2, .. s_target]);

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
        Container raw = await fixture.CreateContainerAsync(Ct);
        await SeedAsync(raw, Count, Ct);
        Container dek3Writer = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy(ToolFixture.Dek3) });
        JObject foreign = Document(Count, 0);
        await dek3Writer.CreateItemAsync(foreign, PartitionKeyOf(foreign), cancellationToken: Ct);
        JObject storedBefore = (await ReadStoredAsync(raw, Ct))[DocumentId(Count)];

        ToolResult run = await RunAsync([.. fixture.MigrateArguments(raw, NewLeaseContainer()), "--dek-id", ToolFixture.Dek1, .. s_target]);

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
    /// The issue's killed process: SIGKILL once progress shows documents done, then the same command again. The
    /// container starts with documents already in the target state ahead of the plaintext ones in the change feed:
    /// a rerun that resumed from the checkpoints does not read them again, one that started over reads them all
    /// (the latest-version change feed moves every rewritten document to its end, so only documents that needed
    /// no rewrite tell the two apart).
    /// </summary>
    [Fact]
    public async Task Migrate_KilledMidRunThenRerun_FinishesFromCheckpointsWithEveryDocumentIntact()
    {
        const int InTarget = 150;
        const int Plaintext = 300;
        Container raw = await fixture.CreateContainerAsync(Ct);
        Container targetWriter = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy(ToolFixture.Dek1) });
        await SeedInTargetAsync(targetWriter, InTarget);
        await SeedAsync(raw, Plaintext, Ct);
        string leases = NewLeaseContainer();
        string[] migrate = [.. fixture.MigrateArguments(raw, leases), "--dek-id", ToolFixture.Dek1, .. s_target, "--batch-size", "20"];

        // A budget slow enough that the kill lands mid-run (about one request unit per rewrite on the bundled endpoint:
        // some 30 s for the 300), however slowly a loaded machine delivers the progress lines.
        var someDone = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using (ToolProcess first = ToolProcess.Start(fixture.Endpoint, [.. migrate, "--budget", "10", "--parallelism", "4"], line =>
        {
            if (line.StartsWith("progress:", StringComparison.Ordinal) && ProgressLine.Count(ProgressLine.Parse(line), "rewritten") >= 40)
            {
                someDone.TrySetResult();
            }
        }))
        {
            await someDone.Task.WaitAsync(s_runBound, Ct);
            first.Kill();
            ToolResult killed = await first.WaitAsync(s_runBound);
            Assert.NotEqual(0, killed.ExitCode);
            Assert.DoesNotContain(killed.Lines, l => l.StartsWith("done:", StringComparison.Ordinal));
        }

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

    [Fact]
    public async Task Migrate_Interrupted_StopsCleanlyWithExitCodeOneAndTheSameCommandFinishes()
    {
        const int Count = 200;
        Container raw = await fixture.CreateContainerAsync(Ct);
        await SeedAsync(raw, Count, Ct);
        string[] migrate = [.. fixture.MigrateArguments(raw, NewLeaseContainer()), "--dek-id", ToolFixture.Dek1, .. s_target, "--batch-size", "20"];

        // 5 RU/s makes the first run need about 40 s for all 200 documents, so the stop requested after the first 20
        // always finds it running. In process, the stop is the cancellation Ctrl+C and SIGTERM trigger (the signal
        // handler only cancels the same token source: MigrateCommand.Stop).
        using var stop = new CancellationTokenSource();
        ToolResult interrupted = await ToolInProcess.RunAsync(fixture.Endpoint, [.. migrate, "--budget", "5"], s_runBound, line =>
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

    private Task<ToolResult> RunAsync(string[] args) => ToolInProcess.RunAsync(fixture.Endpoint, args, s_runBound);

    private async Task<JsonElement> StatusAsync(Container raw, string[] target)
    {
        ToolResult run = (await RunAsync(["status", .. fixture.ContainerArguments(raw), .. target])).AssertSuccess();
        return JsonDocument.Parse(Assert.Single(run.Lines)).RootElement;
    }

    private static long Number(JsonElement status, string name) => status.GetProperty(name).GetInt64();

    private static (string Dek, long Count)[] DekCounts(JsonElement status) =>
        [.. status.GetProperty("byDekId").EnumerateObject().Where(p => p.Value.GetInt64() > 0).Select(p => (p.Name, p.Value.GetInt64()))];

    private static async Task SeedInTargetAsync(Container targetWriter, int count)
    {
        for (int start = 0; start < count; start += 25)
        {
            await Task.WhenAll(Enumerable.Range(start, Math.Min(25, count - start)).Select(i =>
                targetWriter.CreateItemAsync(InTargetDocument(i), PartitionKeyOf(InTargetDocument(i)), cancellationToken: Ct)));
        }
    }

    private static JObject InTargetDocument(int index)
    {
        JObject document = Document(index, 0);
        document["id"] = "t" + DocumentId(index);
        return document;
    }

    private async Task<List<JObject>> LeaseDocumentsAsync(string leaseContainer)
    {
        var documents = new List<JObject>();
        using FeedIterator<JObject> iterator = fixture.Database.GetContainer(leaseContainer).GetItemQueryIterator<JObject>("SELECT * FROM c");
        while (iterator.HasMoreResults)
        {
            documents.AddRange(await iterator.ReadNextAsync(Ct));
        }

        return documents;
    }

    // Every document is stored under the DEK, and reads back (through the library, plaintext forbidden) as seeded.
    private async Task AssertEveryDocumentAsync(Container raw, string dek, int plaintextSeeded, int inTargetSeeded = 0)
    {
        Dictionary<string, JObject> stored = await ReadStoredAsync(raw, Ct);
        Assert.Equal(plaintextSeeded + inTargetSeeded, stored.Count);
        Assert.All(stored.Values, d => Assert.Equal(dek, KeyId(d)));
        Container reader = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy(dek) });
        Dictionary<string, JObject> read = await ReadDecryptedAsync(reader, Ct);
        for (int i = 0; i < plaintextSeeded; i++)
        {
            AssertSame(Document(i, 0), read[DocumentId(i)]);
        }

        for (int i = 0; i < inTargetSeeded; i++)
        {
            AssertSame(InTargetDocument(i), read["t" + DocumentId(i)]);
        }
    }

    private static void AssertSame(JObject expected, JObject actual)
    {
        foreach (JProperty property in expected.Properties())
        {
            Assert.True(JToken.DeepEquals(property.Value, actual[property.Name]), $"{expected["id"]}: {property.Name} differs.");
        }
    }

    private static void AssertNoPlaintext(int count, params ToolResult[] runs)
    {
        foreach (ToolResult run in runs)
        {
            string all = run.Output + run.Error;
            for (int i = 0; i < count; i++)
            {
                Assert.DoesNotContain(Ssn(i, 0), all, StringComparison.Ordinal);
            }
        }
    }
}
