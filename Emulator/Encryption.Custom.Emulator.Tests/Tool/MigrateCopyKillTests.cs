using Encryption.Custom.Emulator.Tests.Migration;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Tool;

/// <summary>
/// <c>cosmos-encryption migrate --target-container</c> (the copy) as a real child process killed with SIGKILL
/// mid-run, then run again: the rerun resumes from the checkpoints and the target ends with every source document
/// exactly once, decrypting to the source's plaintext. Its own class so that its real-time wait runs beside the other
/// migrate tests.
/// </summary>
public sealed class MigrateCopyKillTests(ToolFixture fixture) : MigrateCommandScenario(fixture), IClassFixture<ToolFixture>
{
    // The tool's spelling of a target that also encrypts the id and the partition key (/pk) deterministically.
    private static readonly string[] s_idAndKey = ["--deterministic-path", "/id", "--deterministic-path", "/pk"];

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task MigrateCopy_KilledMidRunThenRerun_TargetHoldsEverySourceDocumentOnce(bool encryptIdAndKey)
    {
        const int Count = 300;
        Container source = await Fixture.CreateContainerAsync(Ct);
        Container target = await Fixture.CreateContainerAsync(Ct);
        await SeedAsync(source, Count, Ct);
        string leases = NewLeaseContainer();
        string[] copy = [.. Fixture.MigrateArguments(source, leases), "--target-container", target.Id, "--dek-id", ToolFixture.Dek1, .. Target, .. (encryptIdAndKey ? s_idAndKey : []), "--batch-size", "20"];

        // A budget slow enough that the kill lands mid-run (about one request unit per copy on the bundled endpoint).
        await KillAfterAsync([.. copy, "--budget", "10", "--parallelism", "4"], rewritten: 40);

        int copiedBeforeKill = (await ReadStoredAsync(target, Ct)).Count;
        Assert.InRange(copiedBeforeKill, 40, Count - 1);
        Assert.All((await ReadStoredAsync(source, Ct)).Values, stored => Assert.Null(KeyId(stored))); // the source is only read

        ToolResult rerun = (await RunAsync(copy)).AssertSuccess();

        IReadOnlyDictionary<string, string> verified = rerun.Last("copy");
        Assert.Equal(Count.ToString(System.Globalization.CultureInfo.InvariantCulture), verified["copied"]);
        Assert.Equal("0", verified["missing"]);
        Assert.Equal("0", verified["different"]);
        Assert.Equal("0", verified["onlyInTarget"]);

        // Resumed, not started over: the rerun's feed starts at the first run's checkpoints.
        long seen = ProgressLine.Count(rerun.Last("done"), "seen");
        TestContext.Current.SendDiagnosticMessage($"Killed with {copiedBeforeKill} copies stored; the rerun saw {seen} documents.");
        Assert.True(seen < Count, $"The rerun saw {seen} documents: it started over.");

        ContainerEncryptionPolicy policy = encryptIdAndKey
            ? new(ToolFixture.Dek1, [.. Paths.Select(p => new EncryptionPolicyIncludedPath(p)), .. new[] { "/id", "/pk" }.Select(p => new EncryptionPolicyIncludedPath(p) { EncryptionType = PathEncryptionType.Deterministic })])
            : Policy(ToolFixture.Dek1);
        EncryptionCopyStatus status = await EncryptionMigrationJob.GetCopyStatusAsync(source, null, target, policy, Fixture.Encryptor, Ct);
        Assert.True(status.IsComplete);
        Assert.Equal(Count, status.DocumentsCopied);
        Assert.Equal(Count, status.Target.TotalDocuments);
        Assert.Equal(Count, status.Target.DocumentsByDataEncryptionKeyId[ToolFixture.Dek1]);
        await CopyScenario.AssertTargetEqualsSourceAsync(source, null, target, policy, Fixture.Encryptor, Ct);
        Dictionary<string, JObject> copies = await ReadStoredAsync(target, Ct);
        Assert.Equal(Count, copies.Count);
        Assert.All(copies.Values, stored => Assert.Equal(ToolFixture.Dek1, KeyId(stored)));
        Assert.Equal(encryptIdAndKey, !copies.ContainsKey(DocumentId(0)));
    }
}
