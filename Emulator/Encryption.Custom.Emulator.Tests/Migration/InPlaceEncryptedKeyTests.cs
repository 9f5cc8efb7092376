using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// The in-place job on a container whose documents were written through a policy that encrypts <c>/id</c> and the
/// partition key (<c>/pk</c>) deterministically: a target that encrypts them exactly as stored (the same DEK) runs and
/// adds a path, leaving every stored id and key as it was, so point reads by the plaintext id still find each document;
/// a target under another DEK would change every stored id and is refused before anything is written.
/// </summary>
public sealed class InPlaceEncryptedKeyTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private const int Count = 30;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static ContainerEncryptionPolicy IdAndKey(string dek, params string[] paths) => new(dek, [
        new EncryptionPolicyIncludedPath("/id") { EncryptionType = PathEncryptionType.Deterministic },
        new EncryptionPolicyIncludedPath("/pk") { EncryptionType = PathEncryptionType.Deterministic },
        .. paths.Select(p => new EncryptionPolicyIncludedPath(p))]);

    private async Task<(Container Raw, Container Leases)> SeededAsync()
    {
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await SeedAsync(raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = IdAndKey(EncryptionFixture.Dek1, "/ssn") }), Count, Ct);
        return (raw, leases);
    }

    [Fact]
    public async Task InPlace_SameDekAddingAPath_KeepsEveryStoredIdAndPointReadsByPlaintextIdStillWork()
    {
        (Container raw, Container leases) = await SeededAsync();
        Dictionary<string, JObject> before = await ReadStoredAsync(raw, Ct);
        Assert.DoesNotContain(DocumentId(0), before.Keys);

        ContainerEncryptionPolicy target = IdAndKey(EncryptionFixture.Dek1, "/ssn", "/salary");
        await using var job = new EncryptionMigrationJob(raw, fixture.Encryptor, target, leases, Options());
        EncryptionMigrationResult result = await RunAsync(job, Ct);

        Assert.True(result.Completed);
        Assert.Empty(result.Failures);
        Assert.Equal(Count, result.Progress.DocumentsRewritten);
        Dictionary<string, JObject> after = await ReadStoredAsync(raw, Ct);
        Assert.Equal(before.Keys.Order(StringComparer.Ordinal), after.Keys.Order(StringComparer.Ordinal));
        Assert.All(after, entry =>
        {
            Assert.Equal(EncryptionFixture.Dek1, KeyId(entry.Value));
            Assert.Equal((string?)before[entry.Key]["pk"], (string?)entry.Value["pk"]);
            Assert.Equal(JTokenType.String, entry.Value["salary"]!.Type); // the added path is now ciphertext
        });

        Container reader = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = target });
        for (int i = 0; i < Count; i++)
        {
            JObject expected = Document(i, 0);
            JObject read = (await reader.ReadItemAsync<JObject>(DocumentId(i), PartitionKeyOf(expected), cancellationToken: Ct)).Resource;
            Assert.All(expected.Properties(), property => Assert.True(JToken.DeepEquals(property.Value, read[property.Name]), $"{DocumentId(i)}: {property.Name} differs."));
        }
    }

    [Fact]
    public async Task InPlace_AnotherDek_IsRefusedBeforeAnyWrite()
    {
        (Container raw, Container leases) = await SeededAsync();
        Dictionary<string, JObject> before = await ReadStoredAsync(raw, Ct);
        EncryptionMigrationOptions options = Accepting(Options(), EncryptionFixture.Dek1);
        await using var job = new EncryptionMigrationJob(raw, fixture.Encryptor, IdAndKey(EncryptionFixture.Dek2, "/ssn"), leases, options);

        EncryptionException refused = await Assert.ThrowsAsync<EncryptionException>(() => RunAsync(job, Ct));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, refused.Kind);
        Assert.StartsWith($"Documents store /id encrypted under the data encryption key(s) '{EncryptionFixture.Dek1}', and the target encrypts it under '{EncryptionFixture.Dek2}'", refused.Message, StringComparison.Ordinal);
        Assert.Contains("Copy the container", refused.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(DocumentId(0), refused.Message, StringComparison.Ordinal);
        await AssertNoLeaseAsync(leases, Ct);
        Dictionary<string, JObject> after = await ReadStoredAsync(raw, Ct);
        Assert.All(before, entry => Assert.Equal(entry.Value["_etag"], after[entry.Key]["_etag"]));
    }
}
