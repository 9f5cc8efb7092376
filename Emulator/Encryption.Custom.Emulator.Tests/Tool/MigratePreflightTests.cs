using Encryption.Custom.Migration;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Tool;

/// <summary>
/// What <c>migrate</c> checks before its first write (issue: "operators can't hurt themselves"): a target that would
/// decrypt a path, or change a path's encryption type, is refused unless each such path is named; <c>--dry-run</c>
/// prints the comparison; every DEK is unwrapped first, so a wrong or foreign key fails at once (exit code 3) and
/// not document by document; the per-document failure lines are capped. The tool runs in process.
/// </summary>
public sealed class MigratePreflightTests(ToolFixture fixture) : IClassFixture<ToolFixture>
{
    private const int Count = 40;
    private static readonly TimeSpan s_runBound = TimeSpan.FromMinutes(2);

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Migrate_ForgottenPath_IsRefusedWithExitTwoNamingThePathAndCountUntilDecryptPathAllowsIt()
    {
        Container raw = await SeedEncryptedAsync(new ContainerEncryptionPolicy(ToolFixture.Dek1, Paths));
        Dictionary<string, JObject> before = await ReadStoredAsync(raw, Ct);
        string leases = "leases-" + Guid.NewGuid().ToString("N");
        string dryRunLeases = "leases-" + Guid.NewGuid().ToString("N");
        string[] RotateSsnOnly(string leaseContainer) => [.. fixture.MigrateArguments(raw, leaseContainer), "--dek-id", ToolFixture.Dek2, "--path", "/ssn", "--accept-dek", ToolFixture.Dek1];
        string[] rotateSsnOnly = RotateSsnOnly(leases);

        ToolResult dryRun = await RunAsync([.. RotateSsnOnly(dryRunLeases), "--dry-run"]);
        ToolResult allowedDryRun = (await RunAsync([.. RotateSsnOnly(dryRunLeases), "--decrypt-path", "/salary", "--dry-run"])).AssertSuccess();
        List<string> containersAfterDryRuns = await ContainerIdsAsync();
        ToolResult refused = await RunAsync(rotateSsnOnly);
        Dictionary<string, JObject> afterRefusal = await ReadStoredAsync(raw, Ct);
        Dictionary<string, JObject> leaseRecords = await ReadStoredAsync(fixture.Database.GetContainer(leases), Ct);
        ToolResult allowed = (await RunAsync([.. rotateSsnOnly, "--decrypt-path", "/salary"])).AssertSuccess();

        string error = refused.AssertFailure(2, "ChangeNotAllowed");
        Assert.Contains($"decrypt /salary in {Count} document(s)", error, StringComparison.Ordinal);
        Assert.Contains("--decrypt-path /salary", error, StringComparison.Ordinal);
        Assert.DoesNotContain(refused.Lines, l => l.StartsWith("progress:", StringComparison.Ordinal) || l.StartsWith("done:", StringComparison.Ordinal));
        Assert.Equal(before.ToDictionary(d => d.Key, d => (string)d.Value["_etag"]!), afterRefusal.ToDictionary(d => d.Key, d => (string)d.Value["_etag"]!));

        // A dry run writes nothing, not even the lease container; a refused run surveyed through the lease container
        // (shared with the job's other processes), which holds the survey's records and no lease.
        Assert.DoesNotContain(containersAfterDryRuns, id => id == dryRunLeases);
        Assert.NotEmpty(leaseRecords);
        Assert.All(leaseRecords.Values, record => Assert.StartsWith(RangeScanRecords.SurveyKind, (string?)record["kind"], StringComparison.Ordinal));
        Assert.EndsWith($" read={Count}", refused.Lines[0], StringComparison.Ordinal);
        Assert.EndsWith($" read={Count}", dryRun.Lines[0], StringComparison.Ordinal);

        // A dry run answers as the run would (exit code 2 here), after printing the whole comparison.
        Assert.Equal(error, dryRun.AssertFailure(2, "ChangeNotAllowed"));
        Assert.Contains($"dek: id=\"{ToolFixture.Dek1}\" documents={Count} action=re-encrypt", dryRun.Lines);
        Assert.Contains($"path: path=\"/salary\" documents={Count} deterministic=0 randomized={Count} unchecked=0 action=decrypt allowed=false", dryRun.Lines);
        Assert.Contains($"path: path=\"/ssn\" documents={Count} deterministic=0 randomized={Count} unchecked=0 action=keep", dryRun.Lines);
        Assert.StartsWith($"survey: documents={Count} unencrypted=0 unreadable=0", dryRun.Lines[0], StringComparison.Ordinal);

        Assert.Contains($"path: path=\"/salary\" documents={Count} deterministic=0 randomized={Count} unchecked=0 action=decrypt allowed=true", allowedDryRun.Lines);
        Assert.Equal(4, allowedDryRun.Lines.Count);
        Assert.Contains("path: path=\"/salary\"", allowed.Output, StringComparison.Ordinal);
        Assert.Equal(Count, ProgressLine.Count(allowed.Last("done"), "rewritten"));
        Dictionary<string, JObject> migrated = await ReadStoredAsync(raw, Ct);
        Assert.All(migrated.Values, d =>
        {
            Assert.Equal(ToolFixture.Dek2, KeyId(d));
            Assert.Equal(JTokenType.Integer, d["salary"]!.Type);
            Assert.Equal(JTokenType.String, d["ssn"]!.Type);
            Assert.DoesNotContain("ssn-", (string)d["ssn"]!, StringComparison.Ordinal);
        });
    }

    [Fact]
    public async Task Migrate_DecryptEverything_NeedsEachEncryptedPathNamed()
    {
        Container raw = await SeedEncryptedAsync(new ContainerEncryptionPolicy(ToolFixture.Dek1, Paths));
        string[] decrypt = [.. fixture.MigrateArguments(raw, "leases-" + Guid.NewGuid().ToString("N")), "--decrypt", "--accept-dek", ToolFixture.Dek1];

        ToolResult none = await RunAsync(decrypt);
        ToolResult one = await RunAsync([.. decrypt, "--decrypt-path", "/ssn"]);
        ToolResult both = (await RunAsync([.. decrypt, "--decrypt-path", "/ssn", "--decrypt-path", "/salary"])).AssertSuccess();

        string noneError = none.AssertFailure(2, "ChangeNotAllowed");
        Assert.Contains($"decrypt /salary in {Count} document(s)", noneError, StringComparison.Ordinal);
        Assert.Contains($"decrypt /ssn in {Count} document(s)", noneError, StringComparison.Ordinal);
        string oneError = one.AssertFailure(2, "ChangeNotAllowed");
        Assert.Contains("/salary", oneError, StringComparison.Ordinal);
        Assert.DoesNotContain("/ssn", oneError, StringComparison.Ordinal);
        Assert.Equal(Count, ProgressLine.Count(both.Last("done"), "rewritten"));
        Assert.All((await ReadStoredAsync(raw, Ct)).Values, d => Assert.Null(KeyId(d)));
    }

    [Fact]
    public async Task Migrate_DeterministicPathTargetedAsRandomized_IsRefusedUntilChangeTypePathAllowsIt()
    {
        var deterministic = new ContainerEncryptionPolicy(ToolFixture.Dek1, [
            new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/salary")]);
        Container raw = await SeedEncryptedAsync(deterministic);
        string[] randomize = [.. fixture.MigrateArguments(raw, "leases-" + Guid.NewGuid().ToString("N")), "--dek-id", ToolFixture.Dek1, "--path", "/ssn", "--path", "/salary"];

        ToolResult same = (await RunAsync([.. fixture.MigrateArguments(raw, "leases-" + Guid.NewGuid().ToString("N")), "--dek-id", ToolFixture.Dek1, "--deterministic-path", "/ssn", "--path", "/salary"])).AssertSuccess();
        ToolResult refused = await RunAsync(randomize);
        ToolResult allowed = (await RunAsync([.. randomize, "--change-type-path", "/ssn"])).AssertSuccess();

        Assert.Contains($"path: path=\"/ssn\" documents={Count} deterministic={Count} randomized=0 unchecked=0 action=keep", same.Lines);
        Assert.Equal(0, ProgressLine.Count(same.Last("done"), "rewritten"));
        string error = refused.AssertFailure(2, "ChangeNotAllowed");
        Assert.Contains($"make /ssn randomized in {Count} document(s)", error, StringComparison.Ordinal);
        Assert.Contains("--change-type-path /ssn", error, StringComparison.Ordinal);
        Assert.Equal(Count, ProgressLine.Count(allowed.Last("done"), "rewritten"));
    }

    [Fact]
    public async Task Migrate_WrongKeyEncryptionKey_FailsAtOnceWithExitThreeNamingTheDekAndTouchesNoDocument()
    {
        Container raw = await fixture.CreateContainerAsync(Ct);
        await SeedAsync(raw, Count, Ct);
        string wrongKek = Path.Combine(Path.GetTempPath(), "wrong-kek-" + Guid.NewGuid().ToString("N") + ".jwk");
        await File.WriteAllTextAsync(wrongKek, "{\"kty\":\"oct\",\"k\":\"" + Convert.ToBase64String(new byte[32]).TrimEnd('=') + "\"}", Ct);
        try
        {
            string[] args = [.. fixture.MigrateArguments(raw, "leases-" + Guid.NewGuid().ToString("N")), "--dek-id", ToolFixture.Dek1, "--path", "/ssn", "--path", "/salary"];
            args[Array.IndexOf(args, fixture.KekFile)] = wrongKek;

            ToolResult run = await RunAsync(args);

            string error = run.AssertFailure(3, "KeyUnavailable");
            Assert.Contains($"dekId '{ToolFixture.Dek1}'", error, StringComparison.Ordinal);
            Assert.Contains("cannot be unwrapped", error, StringComparison.Ordinal);
            Assert.Empty(run.Lines);
            Assert.All((await ReadStoredAsync(raw, Ct)).Values, d => Assert.Null(KeyId(d)));
        }
        finally
        {
            File.Delete(wrongKek);
        }
    }

    [Fact]
    public async Task Migrate_DekWrappedByAnotherProvider_FailsAtOnceWithExitThree()
    {
        Container raw = await fixture.CreateContainerAsync(Ct);
        await SeedAsync(raw, Count, Ct);
        Container keys = fixture.Database.GetContainer(ToolFixture.DekContainer);
        JObject dek3 = (await keys.ReadItemAsync<JObject>(ToolFixture.Dek3, new PartitionKey(ToolFixture.Dek3), cancellationToken: Ct)).Resource;
        string customId = "custom-" + Guid.NewGuid().ToString("N");
        dek3["id"] = customId;
        dek3["keyWrapMetadata"]!["type"] = "custom";
        foreach (string system in new[] { "_rid", "_self", "_etag", "_ts", "_attachments" })
        {
            dek3.Remove(system);
        }

        await keys.CreateItemAsync(dek3, new PartitionKey(customId), cancellationToken: Ct);

        ToolResult run = await RunAsync([.. fixture.MigrateArguments(raw, "leases-" + Guid.NewGuid().ToString("N")), "--dek-id", ToolFixture.Dek1, "--path", "/ssn", "--accept-dek", customId]);

        string error = run.AssertFailure(3, "KeyUnavailable");
        Assert.Contains($"dekId '{customId}'", error, StringComparison.Ordinal);
        Assert.Empty(run.Lines);
    }

    [Fact]
    public async Task Migrate_ManyFailures_ListsTwentyAndACountWithEveryLineInTheFailuresFile()
    {
        const int Foreign = 25;
        Container raw = await fixture.CreateContainerAsync(Ct);
        Container dek3Writer = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = new ContainerEncryptionPolicy(ToolFixture.Dek3, Paths) });
        await SeedAsync(dek3Writer, Foreign, Ct);
        string failuresFile = Path.Combine(Path.GetTempPath(), "failures-" + Guid.NewGuid().ToString("N") + ".txt");
        try
        {
            ToolResult run = await RunAsync([.. fixture.MigrateArguments(raw, "leases-" + Guid.NewGuid().ToString("N")), "--dek-id", ToolFixture.Dek1, "--path", "/ssn", "--path", "/salary", "--failures-file", failuresFile]);

            run.AssertFailure(4, "DocumentsFailed");
            Assert.Contains($"dek: id=\"{ToolFixture.Dek3}\" documents={Foreign} action=not-accepted", run.Lines);
            Assert.Equal(20, run.Lines.Count(l => l.StartsWith("failed: id=", StringComparison.Ordinal)));
            Assert.Contains($"failed: {Foreign - 20} more document(s) not listed here (every line is in the failures file).", run.Lines);
            string[] all = await File.ReadAllLinesAsync(failuresFile, Ct);
            Assert.Equal(Foreign, all.Length);
            Assert.All(all, l => Assert.Contains("kind=KeyNotAccepted", l, StringComparison.Ordinal));
        }
        finally
        {
            File.Delete(failuresFile);
        }
    }

    // A path no document encrypts yet is counted by the documents it would be encrypted in (those holding a value
    // there, nested selectors included), not by those that encrypt it (0, which said nothing); a path no document
    // holds stays 0. Plaintext documents, then a dry run: nothing written.
    [Fact]
    public async Task Migrate_DryRunOverPlaintext_CountsTheDocumentsEachNewPathWouldBeEncryptedIn()
    {
        Container raw = await fixture.CreateContainerAsync(Ct);
        await SeedAsync(raw, Count, Ct);
        const int WithCity = 3;
        for (int i = 0; i < WithCity; i++)
        {
            JObject document = Document(i, 0);
            document["address"] = new JObject { ["city"] = "c" + i };
            await raw.UpsertItemAsync(document, PartitionKeyOf(document), cancellationToken: Ct);
        }

        JObject nullCity = Document(WithCity, 0);
        nullCity["address"] = new JObject { ["city"] = null };
        await raw.UpsertItemAsync(nullCity, PartitionKeyOf(nullCity), cancellationToken: Ct);
        Dictionary<string, JObject> before = await ReadStoredAsync(raw, Ct);

        ToolResult dryRun = (await RunAsync([.. fixture.MigrateArguments(raw, "leases-" + Guid.NewGuid().ToString("N")), "--dek-id", ToolFixture.Dek1, "--path", "/ssn", "--path", "/address/city", "--path", "/nickname", "--dry-run"])).AssertSuccess();

        Assert.StartsWith($"survey: documents={Count} unencrypted={Count} unreadable=0", dryRun.Lines[0], StringComparison.Ordinal);
        Assert.Contains($"path: path=\"/ssn\" documents={Count} deterministic=0 randomized=0 unchecked=0 action=encrypt", dryRun.Lines);
        Assert.Contains($"path: path=\"/address/city\" documents={WithCity} deterministic=0 randomized=0 unchecked=0 action=encrypt", dryRun.Lines);
        Assert.Contains("path: path=\"/nickname\" documents=0 deterministic=0 randomized=0 unchecked=0 action=encrypt", dryRun.Lines);
        Assert.Equal(before.ToDictionary(d => d.Key, d => (string)d.Value["_etag"]!), (await ReadStoredAsync(raw, Ct)).ToDictionary(d => d.Key, d => (string)d.Value["_etag"]!));
    }

    private async Task<Container> SeedEncryptedAsync(ContainerEncryptionPolicy policy)
    {
        Container raw = await fixture.CreateContainerAsync(Ct);
        await SeedAsync(raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = policy }), Count, Ct);
        return raw;
    }

    private async Task<List<string>> ContainerIdsAsync()
    {
        var ids = new List<string>();
        using FeedIterator<ContainerProperties> iterator = fixture.Database.GetContainerQueryIterator<ContainerProperties>();
        while (iterator.HasMoreResults)
        {
            ids.AddRange((await iterator.ReadNextAsync(Ct)).Select(c => c.Id));
        }

        return ids;
    }

    private Task<ToolResult> RunAsync(string[] args) => ToolInProcess.RunAsync(fixture.Endpoint, args, s_runBound);
}
