using System.Globalization;
using Encryption.Custom.Emulator.Tests.Encryption;
using Microsoft.Azure.Cosmos.Linq;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// The migration job and deterministic paths (docs/queries.md, docs/migration.md "Making a path deterministic (or
/// back)"): a migration writes each path with the policy's encryption type, and a document encrypted with the target
/// key but the other encryption type is outside the target state. Checked with the queries users would run.
/// </summary>
public sealed class DeterministicMigrationTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private const int Count = 40;
    private const int Values = 5;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    // /ssn as given, /salary randomized: a policy with both kinds of path.
    private static ContainerEncryptionPolicy Policy(PathEncryptionType ssn) =>
        new(EncryptionFixture.Dek1,
        [
            new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = ssn },
            new EncryptionPolicyIncludedPath("/salary"),
        ]);

    private static JObject NewRow(int index) => new()
    {
        ["id"] = DocumentId(index),
        ["pk"] = "p" + (index % 3).ToString(CultureInfo.InvariantCulture),
        ["ssn"] = SsnValue(index % Values),
        ["salary"] = index * 100,
    };

    private static string SsnValue(int value) => "ssn-" + value.ToString(CultureInfo.InvariantCulture);

    // The ids whose ssn is SsnValue(value): every Values-th document.
    private static string[] Expected(int value) =>
        [.. Enumerable.Range(0, Count).Where(i => i % Values == value).Select(DocumentId).Order(StringComparer.Ordinal)];

    private static async Task SeedAsync(Container container)
    {
        for (int i = 0; i < Count; i++)
        {
            JObject row = NewRow(i);
            await container.CreateItemAsync(row, new PartitionKey((string)row["pk"]!), cancellationToken: Ct);
        }
    }

    // changingTypeOf: the path whose encryption type the run is allowed to change (the job refuses it otherwise).
    private async Task<EncryptionMigrationResult> MigrateAsync(Container raw, Container leases, ContainerEncryptionPolicy target, string processorName, string? changingTypeOf = null)
    {
        EncryptionMigrationOptions options = Options();
        options.ProcessorName = processorName;
        if (changingTypeOf is not null)
        {
            options.AllowedEncryptionTypeChangePaths.Add(changingTypeOf);
        }

        await using var job = new EncryptionMigrationJob(raw, fixture.Encryptor, target, leases, options);
        return await RunAsync(job, Ct);
    }

    // Every value of /ssn looked up by a SQL parameter and by LINQ: each finds exactly its documents.
    private static async Task AssertEqualityFindsEveryDocumentAsync(Container container)
    {
        IOrderedQueryable<Row> rows = container.GetItemLinqQueryable<Row>();
        for (int value = 0; value < Values; value++)
        {
            QueryDefinition sql = await new QueryDefinition("SELECT * FROM c WHERE c.ssn = @ssn").AddParameterAsync("@ssn", SsnValue(value), "/ssn", container, Ct);
            Assert.Equal(Expected(value), await IdsAsync(container.GetItemQueryIterator<Row>(sql)));

            string ssn = SsnValue(value);
            Assert.Equal(Expected(value), await IdsAsync(container.ToEncryptionFeedIterator(rows.Where(r => r.Ssn == ssn))));
        }
    }

    private static async Task<string[]> IdsAsync(FeedIterator<Row> iterator)
    {
        var ids = new List<string>();
        using (iterator)
        {
            while (iterator.HasMoreResults)
            {
                foreach (Row row in await iterator.ReadNextAsync(Ct))
                {
                    ids.Add(row.Id);
                }
            }
        }

        return [.. ids.Order(StringComparer.Ordinal)];
    }

    [Fact]
    public async Task PlaintextToAPolicyWithADeterministicPath_EqualityQueriesFindExactlyTheMigratedDocuments()
    {
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await SeedAsync(raw);
        ContainerEncryptionPolicy target = Policy(PathEncryptionType.Deterministic);

        EncryptionMigrationResult result = await MigrateAsync(raw, leases, target, "to-deterministic");

        Assert.True(result.Completed);
        Assert.Empty(result.Failures);
        Assert.Equal(Count, result.Progress.DocumentsRewritten);
        Assert.All((await ReadStoredAsync(raw, Ct)).Values, stored => Assert.Equal(EncryptionFixture.Dek1, KeyId(stored)));
        await AssertEqualityFindsEveryDocumentAsync(raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = target }));
        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(raw, fixture.Encryptor, target, Ct);
        Assert.Equal(0, status.DocumentsOutsideTargetState);
    }

    [Fact]
    public async Task RandomizedToDeterministic_SameKey_RewritesEveryDocumentOnceAndQueriesFindThem()
    {
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await SeedAsync(raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy(PathEncryptionType.Randomized) }));
        ContainerEncryptionPolicy target = Policy(PathEncryptionType.Deterministic);
        Container queried = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = target });

        // Same key, algorithm and paths: only the IVs tell that /ssn is not yet deterministic.
        EncryptionMigrationStatus before = await EncryptionMigrationJob.GetStatusAsync(raw, fixture.Encryptor, target, Ct);
        Assert.Equal(Count, before.DocumentsOutsideTargetState);
        Assert.True(before.EncryptionTypesChecked);

        // Without the key the scan cannot see it, and says so rather than passing for a verified count.
        EncryptionMigrationStatus keyless = await EncryptionMigrationJob.GetStatusAsync(raw, target, Ct);
        Assert.Equal((0L, false), (keyless.DocumentsOutsideTargetState, keyless.EncryptionTypesChecked));
        QueryDefinition none = await new QueryDefinition("SELECT * FROM c WHERE c.ssn = @ssn").AddParameterAsync("@ssn", SsnValue(0), "/ssn", queried, Ct);
        Assert.Empty(await IdsAsync(queried.GetItemQueryIterator<Row>(none)));

        // Making a path deterministic shows equal values as equal: the job refuses it unless the path is named.
        EncryptionException refused = await Assert.ThrowsAsync<EncryptionException>(() => MigrateAsync(raw, leases, target, "randomized-to-deterministic"));
        Assert.Equal((EncryptionErrorKind.InvalidOptions, "/ssn"), (refused.Kind, refused.Path));
        Assert.Contains($"make /ssn deterministic in {Count} document(s)", refused.Message, StringComparison.Ordinal);
        Assert.Contains(nameof(EncryptionMigrationOptions.AllowedEncryptionTypeChangePaths), refused.Message, StringComparison.Ordinal);
        Assert.Equal(Count, (await EncryptionMigrationJob.GetStatusAsync(raw, fixture.Encryptor, target, Ct)).DocumentsOutsideTargetState);

        EncryptionMigrationResult result = await MigrateAsync(raw, leases, target, "randomized-to-deterministic", changingTypeOf: "/ssn");

        Assert.True(result.Completed);
        Assert.Empty(result.Failures);
        Assert.Equal(Count, result.Progress.DocumentsRewritten);
        await AssertEqualityFindsEveryDocumentAsync(queried);
        EncryptionMigrationStatus after = await EncryptionMigrationJob.GetStatusAsync(raw, fixture.Encryptor, target, Ct);
        Assert.Equal(Count, after.DocumentsInTargetState);
        Assert.Equal(0, after.DocumentsOutsideTargetState);

        // A second run from the beginning of the feed finds everything in the target state.
        EncryptionMigrationResult again = await MigrateAsync(raw, leases, target, "randomized-to-deterministic-again");
        Assert.True(again.Completed);
        Assert.Equal(0, again.Progress.DocumentsRewritten);
        Assert.Equal(Count, again.Progress.DocumentsSkipped);
    }

    [Fact]
    public async Task DeterministicToRandomized_SameKey_RewritesEveryDocument()
    {
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await SeedAsync(raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy(PathEncryptionType.Deterministic) }));
        ContainerEncryptionPolicy target = Policy(PathEncryptionType.Randomized);
        Dictionary<string, JObject> deterministic = await ReadStoredAsync(raw, Ct);

        EncryptionException refused = await Assert.ThrowsAsync<EncryptionException>(() => MigrateAsync(raw, leases, target, "deterministic-to-randomized"));
        Assert.Contains($"make /ssn randomized in {Count} document(s)", refused.Message, StringComparison.Ordinal);
        Assert.Equal(deterministic.Keys.Order(), (await ReadStoredAsync(raw, Ct)).Where(e => (string)e.Value["_etag"]! == (string)deterministic[e.Key]["_etag"]!).Select(e => e.Key).Order());

        EncryptionMigrationResult result = await MigrateAsync(raw, leases, target, "deterministic-to-randomized", changingTypeOf: "/ssn");

        Assert.True(result.Completed);
        Assert.Equal(Count, result.Progress.DocumentsRewritten);
        Dictionary<string, JObject> randomized = await ReadStoredAsync(raw, Ct);
        Assert.All(randomized, entry => Assert.NotEqual((string)deterministic[entry.Key]["ssn"]!, (string)entry.Value["ssn"]!));
        Assert.Equal(0, (await EncryptionMigrationJob.GetStatusAsync(raw, fixture.Encryptor, target, Ct)).DocumentsOutsideTargetState);
    }

    public sealed record Row(
        [property: JsonProperty("id")] string Id,
        [property: JsonProperty("pk")] string Pk,
        [property: JsonProperty("ssn")] string Ssn,
        [property: JsonProperty("salary")] long Salary);
}
