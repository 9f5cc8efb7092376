using Encryption.Custom.Emulator.Tests.Encryption;
using Encryption.Custom.Emulator.Tests.Hosting;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// <see cref="EncryptionMigrationJob"/> end to end when not everything goes to plan: documents that cannot be migrated
/// are reported and left alone, and a rerun under an earlier job's checkpoints still finds every document.
/// </summary>
public sealed class MigrationFailureTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
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
    public async Task DocumentsThatCannotBeMigrated_AreReportedAndLeftAsTheyWere()
    {
        const int Count = 30;
        (Container raw, Container leases) = await ContainersAsync();
        Container dek1Writer = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy(EncryptionFixture.Dek1) });
        await SeedAsync(dek1Writer, Count, Ct);
        Dictionary<string, JObject> original = await ReadStoredAsync(raw, Ct);

        // A flipped ciphertext character, a key nobody accepted, an accepted key that does not exist, unreadable metadata.
        var broken = new Dictionary<string, EncryptionErrorKind>
        {
            [DocumentId(1)] = EncryptionErrorKind.InvalidCipherText,
            [DocumentId(2)] = EncryptionErrorKind.KeyNotAccepted,
            [DocumentId(3)] = EncryptionErrorKind.KeyUnavailable,
            [DocumentId(4)] = EncryptionErrorKind.MalformedDocument,
        };
        await ReplaceStoredAsync(raw, original[DocumentId(1)], d => d["ssn"] = Tamper((string)d["ssn"]!));
        await ReplaceStoredAsync(raw, original[DocumentId(2)], d => d["_ei"]!["_en"] = "dek-stolen");
        await ReplaceStoredAsync(raw, original[DocumentId(3)], d => d["_ei"]!["_en"] = "dek-missing");
        await ReplaceStoredAsync(raw, original[DocumentId(4)], d => d["_ei"] = 5);
        Dictionary<string, JObject> beforeRun = await ReadStoredAsync(raw, Ct);

        using var logs = new CapturedLogs();
        EncryptionMigrationOptions options = Options();
        options.LoggerFactory = logs;
        await using var job = new EncryptionMigrationJob(raw, fixture.Encryptor, Policy(EncryptionFixture.Dek2), leases, Accepting(options, EncryptionFixture.Dek1, "dek-missing"));
        EncryptionMigrationResult result = await RunAsync(job, Ct);
        Assert.All(logs.Entries, entry => Assert.Equal("Encryption.Custom.EncryptionMigrationJob", entry.Category));

        Assert.True(result.Completed);
        Assert.Equal(broken.Keys.Order(), result.Failures.Select(f => f.Id).Order());
        foreach (EncryptionMigrationFailure failure in result.Failures)
        {
            Assert.Equal(broken[failure.Id], failure.ErrorKind);
            Assert.Equal(PartitionKeyOf(beforeRun[failure.Id]).ToString(), failure.PartitionKey);
            Assert.DoesNotContain("ssn-", failure.Reason, StringComparison.Ordinal);
        }

        Dictionary<string, JObject> after = await ReadStoredAsync(raw, Ct);
        foreach (string id in broken.Keys)
        {
            Assert.Equal((string)beforeRun[id]["_etag"]!, (string)after[id]["_etag"]!);
        }

        Assert.Equal(Count - broken.Count, after.Values.Count(d => KeyId(d) == EncryptionFixture.Dek2));

        // The log has the run's start, progress, one warning per failure (id, partition key, error type) and its end;
        // never a value: no plaintext, and no stored ciphertext either.
        Assert.True(logs.Has("MigrationStarted", "'a'"));
        Assert.True(logs.Has("MigrationProgress", $"{Count - broken.Count} rewritten"));
        foreach ((string id, EncryptionErrorKind kind) in broken)
        {
            Assert.True(logs.Has("MigrationDocumentFailed", $"'{id}' (partition key {PartitionKeyOf(beforeRun[id])}) as it was ({kind})"), id);
        }

        Assert.True(logs.Has("MigrationStopped", "completed: True, failures: 4"));
        Assert.DoesNotContain("ssn-", logs.AllText, StringComparison.Ordinal);
        Assert.All(beforeRun.Values, d => Assert.DoesNotContain((string)d["ssn"]!, logs.AllText, StringComparison.Ordinal));
    }

    [Fact]
    public async Task CaughtUp_UnderAnEarlierMigrationsCheckpoints_TheVerificationRevisitsEveryDocumentAndCompletes()
    {
        const int Count = 40;
        (Container raw, Container leases) = await ContainersAsync();
        await SeedAsync(raw, Count, Ct);
        await using (var encrypt = new EncryptionMigrationJob(raw, fixture.Encryptor, Policy(EncryptionFixture.Dek1), leases, Options()))
        {
            Assert.True((await RunAsync(encrypt, Ct)).Completed);
        }

        // A rotation started under the same processor name inherits the finished checkpoints: the estimator reports
        // no lag and the feed shows nothing, yet every document is outside the new target. Lag alone is not "done":
        // the verification finds them, and the job migrates what it found (a rerun under the same job name finishes).
        using var logs = new CapturedLogs();
        EncryptionMigrationOptions reused = Options();
        reused.LoggerFactory = logs;
        await using var rerun = new EncryptionMigrationJob(raw, fixture.Encryptor, Policy(EncryptionFixture.Dek2), leases, Accepting(reused, EncryptionFixture.Dek1));
        EncryptionMigrationResult done = await RunAsync(rerun, Ct);

        Assert.True(done.Completed);
        Assert.Equal(0, done.Progress.EstimatedLag);
        Assert.Equal(Count, done.Progress.DocumentsRewritten);
        Assert.Empty(done.Failures);
        Assert.Equal(0, done.Verification!.DocumentsOutsideTargetState);
        Assert.False(logs.Has("MigrationVerificationOutstanding", string.Empty));
        Assert.All((await ReadStoredAsync(raw, Ct)).Values, d => Assert.Equal(EncryptionFixture.Dek2, KeyId(d)));
    }

    [Fact]
    public async Task AWriterLeavesUnlistedCipherTextBeforeTheReplace_TheReReadReportsItAndNeverEncryptsItAgain()
    {
        const int Count = 20;
        (Container raw, Container leases) = await ContainersAsync();
        await SeedAsync(raw, Count, Ct);
        string victim = DocumentId(7);
        Container dek1Writer = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy(EncryptionFixture.Dek1) });

        // Between the job's read of the victim and its conditional replace, an application writes the victim encrypted
        // and then a bad copy drops its _ei: /ssn and /salary now hold ciphertext that no metadata lists. The replace
        // meets a 412 and the job reads the document again; that re-read must refuse it as the first triage would.
        JObject? stripped = null;
        var injector = new BeforeFirstReplaceOf(victim, async () =>
        {
            JObject latest = Document(7, version: 2);
            await dek1Writer.UpsertItemAsync(latest, PartitionKeyOf(latest), cancellationToken: Ct);
            JObject stored = (await ReadStoredAsync(raw, Ct))[victim];
            stored.Remove("_ei");
            await raw.ReplaceItemAsync(stored, victim, PartitionKeyOf(stored), cancellationToken: Ct);
            stripped = (await ReadStoredAsync(raw, Ct))[victim];
        });
        using CosmosClient jobClient = fixture.Endpoint.CreateClient(options => options.CustomHandlers.Add(injector));
        Container jobContainer = jobClient.GetContainer(fixture.Database.Id, raw.Id);

        await using var job = new EncryptionMigrationJob(jobContainer, fixture.Encryptor, Policy(EncryptionFixture.Dek1), leases, Options());
        EncryptionMigrationResult result = await RunAsync(job, Ct);

        Assert.True(injector.Injected, "The writer was never put between the job's read and its replace.");
        Assert.True(result.Progress.Conflicts >= 1, "The job's replace of the victim did not meet the writer's version.");
        EncryptionMigrationFailure failure = Assert.Single(result.Failures);
        Assert.Equal(victim, failure.Id);
        Assert.Equal(EncryptionErrorKind.UnlistedCipherText, failure.ErrorKind);

        // Left exactly as the writer left it: no second layer over its ciphertext, no _ei claiming the values.
        Dictionary<string, JObject> after = await ReadStoredAsync(raw, Ct);
        Assert.True(JToken.DeepEquals(stripped, after[victim]), "The victim was rewritten.");
        Assert.Equal(Count - 1, after.Values.Count(d => KeyId(d) == EncryptionFixture.Dek1));
    }

    // Runs an action once, just before the first replace (PUT) of one document goes out, then sends the replace.
    private sealed class BeforeFirstReplaceOf(string id, Func<Task> action) : RequestHandler
    {
        private int _fired;

        public bool Injected => Volatile.Read(ref _fired) == 1;

        public override async Task<ResponseMessage> SendAsync(RequestMessage request, CancellationToken cancellationToken)
        {
            if (request.Method == HttpMethod.Put
                && request.RequestUri.OriginalString.EndsWith("/docs/" + id, StringComparison.Ordinal)
                && Interlocked.CompareExchange(ref _fired, 1, 0) == 0)
            {
                await action();
            }

            return await base.SendAsync(request, cancellationToken);
        }
    }

    private async Task ReplaceStoredAsync(Container raw, JObject stored, Action<JObject> change)
    {
        var copy = (JObject)stored.DeepClone();
        change(copy);
        await raw.ReplaceItemAsync(copy, (string)copy["id"]!, PartitionKeyOf(copy), cancellationToken: Ct);
    }

    private static string Tamper(string base64)
    {
        char[] characters = base64.ToCharArray();
        int middle = characters.Length / 2;
        characters[middle] = characters[middle] == 'A' ? 'B' : 'A';
        return new string(characters);
    }
}
