using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// The job refuses, before its first write, a target that would take an encryption away (docs/migration.md "What the
/// job refuses"): a path the target drops, or "no encryption" at all, runs only when the options name each such path.
/// (A changed encryption type: <see cref="DeterministicMigrationTests"/>.)
/// </summary>
public sealed class DestructiveTargetTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private const int Count = 20;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task TargetDroppingAnEncryptedPath_IsRefusedWithNothingWritten_UntilThePathIsAllowed()
    {
        (Container raw, Container leases) = await EncryptedContainerAsync();
        Dictionary<string, JObject> before = await ReadStoredAsync(raw, Ct);
        var target = new ContainerEncryptionPolicy(EncryptionFixture.Dek2, ["/ssn"]);

        EncryptionException refused = await Assert.ThrowsAsync<EncryptionException>(() => RunAsync(raw, leases, target, Options("refused")));

        Assert.Equal((EncryptionErrorKind.InvalidOptions, "/salary"), (refused.Kind, refused.Path));
        Assert.Contains($"decrypt /salary in {Count} document(s)", refused.Message, StringComparison.Ordinal);
        Assert.Contains("AllowedDecryptPaths", refused.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("ssn-", refused.Message, StringComparison.Ordinal);
        await AssertUntouchedAsync(raw, leases, before);

        EncryptionMigrationOptions allowed = Options("allowed");
        allowed.AllowedDecryptPaths.Add("/salary");
        EncryptionMigrationResult result = await RunAsync(raw, leases, target, allowed);

        Assert.True(result.Completed);
        Assert.Equal(Count, result.Progress.DocumentsRewritten);
        Assert.All((await ReadStoredAsync(raw, Ct)).Values, stored =>
        {
            Assert.Equal(EncryptionFixture.Dek2, KeyId(stored));
            Assert.Equal(JTokenType.Integer, stored["salary"]!.Type);
        });
    }

    [Fact]
    public async Task DecryptingEverything_NeedsEveryEncryptedPathNamed()
    {
        (Container raw, Container leases) = await EncryptedContainerAsync();
        Dictionary<string, JObject> before = await ReadStoredAsync(raw, Ct);

        // Naming one of the two paths is not enough; the message names the one still missing.
        EncryptionMigrationOptions partly = Options("partly");
        partly.AllowedDecryptPaths.Add("/ssn");
        EncryptionException refused = await Assert.ThrowsAsync<EncryptionException>(() => RunAsync(raw, leases, null, partly));
        Assert.Contains($"decrypt /salary in {Count} document(s)", refused.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("decrypt /ssn", refused.Message, StringComparison.Ordinal);
        await AssertUntouchedAsync(raw, leases, before);

        EncryptionMigrationOptions both = Options("both");
        both.AllowedDecryptPaths.Add("/ssn");
        both.AllowedDecryptPaths.Add("/salary");
        EncryptionMigrationResult result = await RunAsync(raw, leases, null, both);

        Assert.True(result.Completed);
        Assert.All((await ReadStoredAsync(raw, Ct)).Values, stored => Assert.Null(KeyId(stored)));
    }

    // Count documents encrypted under DEK1 on /ssn and /salary; the job is given DEK1 as an accepted source key.
    private async Task<(Container Raw, Container Leases)> EncryptedContainerAsync()
    {
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        var policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, Paths);
        await SeedAsync(raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = policy }), Count, Ct);
        return (raw, leases);
    }

    private async Task<EncryptionMigrationResult> RunAsync(Container raw, Container leases, ContainerEncryptionPolicy? target, EncryptionMigrationOptions options)
    {
        options.ProcessorName = options.InstanceName;
        await using var job = new EncryptionMigrationJob(raw, fixture.Encryptor, target, leases, Accepting(options, EncryptionFixture.Dek1));
        return await MigrationScenario.RunAsync(job, Ct);
    }

    // Every document as it was (same ETag), and no lease written (only the survey's records): the processor never started.
    private static async Task AssertUntouchedAsync(Container raw, Container leases, Dictionary<string, JObject> before)
    {
        Dictionary<string, JObject> after = await ReadStoredAsync(raw, Ct);
        Assert.Equal(before.Keys.Order(), after.Keys.Order());
        Assert.All(before, entry => Assert.Equal((string)entry.Value["_etag"]!, (string)after[entry.Key]["_etag"]!));
        await AssertNoLeaseAsync(leases, Ct);
    }
}
