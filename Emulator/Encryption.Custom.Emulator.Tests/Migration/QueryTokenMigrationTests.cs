using System.Globalization;
using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// Backfilling query tokens (docs/migration.md "Query tokens"): documents written under a policy without range
/// declarations, then the job run with a policy that adds a range query on <c>/age</c>; afterwards range queries
/// through the encryption container return exactly the rows the same query returns on a plaintext copy, and the
/// status query (with and without the key) finds nothing left to migrate.
/// </summary>
public sealed class QueryTokenMigrationTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private const int Count = 60;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static ContainerEncryptionPolicy Policy(bool ageRange) => new(EncryptionFixture.Dek1,
    [
        new EncryptionPolicyIncludedPath("/ssn"),
        new EncryptionPolicyIncludedPath("/age") { Queries = ageRange ? new IntegerRangeQueryOptions(0, 150) : null },
    ]);

    // Ages spread over the domain, with repeats, a few documents without an age and a few with a null one (neither
    // matches a range, on Cosmos DB and, since compat/between.mjs, on the bundled endpoint).
    private static JObject Row(int index)
    {
        var row = new JObject
        {
            ["id"] = DocumentId(index),
            ["pk"] = "p" + (index % 5).ToString(CultureInfo.InvariantCulture),
            ["ssn"] = "ssn-" + index.ToString(CultureInfo.InvariantCulture),
        };
        if (index % 17 == 0)
        {
            row["age"] = JValue.CreateNull();
        }
        else if (index % 13 != 0)
        {
            row["age"] = index * 37 % 151;
        }

        return row;
    }

    [Theory]
    [InlineData(JsonProcessor.Stream)]
    [InlineData(JsonProcessor.Newtonsoft)]
    public async Task AddingARangeQuery_TheJobBackfillsTheTokens_RangeQueriesMatchAPlaintextFilter(JsonProcessor processor)
    {
        (Container raw, Container before) = await fixture.CreateContainerAsync(options: new EncryptionContainerOptions { JsonProcessor = processor, Policy = Policy(ageRange: false) }, cancellationToken: Ct);
        (Container plain, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        for (int i = 0; i < Count; i++)
        {
            JObject row = Row(i);
            await before.CreateItemAsync(row, PartitionKeyOf(row), cancellationToken: Ct);
            await plain.CreateItemAsync(row, PartitionKeyOf(row), cancellationToken: Ct);
        }

        ContainerEncryptionPolicy target = Policy(ageRange: true);
        EncryptionMigrationStatus pending = await EncryptionMigrationJob.GetStatusAsync(raw, target, Ct);
        Assert.Equal(((long)Count, (long)Count), (pending.DocumentsOutsideTargetState, pending.DocumentsWithStaleQueryTokens));

        EncryptionMigrationOptions options = Options();
        options.ProcessorName = "token-backfill";
        options.JsonProcessor = processor;
        EncryptionMigrationResult result;
        await using (var job = new EncryptionMigrationJob(raw, fixture.Encryptor, target, leases, options))
        {
            result = await RunAsync(job, Ct);
        }

        Assert.True(result.Completed);
        Assert.Empty(result.Failures);
        Assert.Equal(Count, result.Progress.DocumentsRewritten);
        Assert.All((await ReadStoredAsync(raw, Ct)).Values, stored => Assert.NotNull(stored["_q"]));

        // A strict reader (the default) under the new policy checks every token it reads.
        Container after = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { JsonProcessor = processor, Policy = target });
        string[] queries =
        [
            "SELECT * FROM c WHERE c.age >= 20 AND c.age < 90",
            "SELECT * FROM c WHERE c.age BETWEEN 0 AND 150",
            "SELECT * FROM c WHERE c.age > 145",
            "SELECT * FROM c WHERE c.age >= 149 AND c.age <= 150",
            "SELECT * FROM c WHERE c.age <= 37 AND c.pk = 'p1'",
            "SELECT VALUE c FROM c WHERE 100 < c.age",
        ];
        foreach (string query in queries)
        {
            string[] expected = await IdsAsync(plain, query);
            Assert.NotEmpty(expected);
            string[] actual = await IdsAsync(after, query);
            Assert.True(expected.SequenceEqual(actual), $"{query}: expected {string.Join(",", expected)}, got {string.Join(",", actual)}");
        }

        foreach (EncryptionMigrationStatus status in new[]
        {
            await EncryptionMigrationJob.GetStatusAsync(raw, target, Ct),
            await EncryptionMigrationJob.GetStatusAsync(raw, fixture.Encryptor, target, Ct),
        })
        {
            Assert.Equal(((long)Count, 0L, 0L), (status.TotalDocuments, status.DocumentsOutsideTargetState, status.DocumentsWithStaleQueryTokens));
        }
    }

    // A bound policy (nested selectors bind by default) gaining a range on a nested selector.
    private static ContainerEncryptionPolicy NestedPolicy(bool zipRange) => new(EncryptionFixture.Dek1,
    [
        new EncryptionPolicyIncludedPath("/ssn"),
        new EncryptionPolicyIncludedPath("/address/city"),
        new EncryptionPolicyIncludedPath("/address/zip") { Queries = zipRange ? new IntegerRangeQueryOptions(0, 99999) : null },
    ]);

    [Theory]
    [InlineData(JsonProcessor.Stream)]
    [InlineData(JsonProcessor.Newtonsoft)]
    public async Task AddingARangeOnABoundNestedSelector_TheJobBackfills_AndTheKeyedStatusChecksBoundTokens(JsonProcessor processor)
    {
        (Container raw, Container before) = await fixture.CreateContainerAsync(options: new EncryptionContainerOptions { JsonProcessor = processor, Policy = NestedPolicy(zipRange: false) }, cancellationToken: Ct);
        (Container plain, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        const int count = 30;
        for (int i = 0; i < count; i++)
        {
            JObject row = Row(i);
            row["address"] = i % 6 == 0 ? JValue.CreateNull() : new JObject { ["city"] = "c" + (i % 4).ToString(CultureInfo.InvariantCulture), ["zip"] = i * 3331 % 100000 };
            await before.CreateItemAsync(row, PartitionKeyOf(row), cancellationToken: Ct);
            await plain.CreateItemAsync(row, PartitionKeyOf(row), cancellationToken: Ct);
        }

        ContainerEncryptionPolicy target = NestedPolicy(zipRange: true);
        EncryptionMigrationOptions options = Options();
        options.ProcessorName = "nested-token-backfill";
        options.JsonProcessor = processor;
        await using (var job = new EncryptionMigrationJob(raw, fixture.Encryptor, target, leases, options))
        {
            EncryptionMigrationResult result = await RunAsync(job, Ct);
            Assert.True(result.Completed);
            Assert.Empty(result.Failures);
        }

        Container after = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { JsonProcessor = processor, Policy = target });
        foreach (string query in new[] { "SELECT * FROM c WHERE c.address.zip >= 20000 AND c.address.zip < 70000", "SELECT * FROM c WHERE c.address.zip > 90000" })
        {
            string[] expected = await IdsAsync(plain, query);
            Assert.NotEmpty(expected);
            Assert.Equal(expected, await IdsAsync(after, query));
        }

        Assert.Equal(0L, (await EncryptionMigrationJob.GetStatusAsync(raw, fixture.Encryptor, target, Ct)).DocumentsWithStaleQueryTokens);

        // One document's zip tokens replaced by another's: only a check that decrypts the bound cell sees it.
        Dictionary<string, JObject> stored = await ReadStoredAsync(raw, Ct);
        JObject victim = stored[DocumentId(1)];
        victim["_q"]!["/address/zip"] = stored[DocumentId(2)]["_q"]!["/address/zip"]!.DeepClone();
        await raw.ReplaceItemAsync(victim, DocumentId(1), PartitionKeyOf(victim), cancellationToken: Ct);
        Assert.Equal(0L, (await EncryptionMigrationJob.GetStatusAsync(raw, target, Ct)).DocumentsWithStaleQueryTokens);
        Assert.Equal(1L, (await EncryptionMigrationJob.GetStatusAsync(raw, fixture.Encryptor, target, Ct)).DocumentsWithStaleQueryTokens);
    }

    private static async Task<string[]> IdsAsync(Container container, string query)
    {
        var ids = new List<string>();
        using FeedIterator<JObject> iterator = container.GetItemQueryIterator<JObject>(new QueryDefinition(query), requestOptions: new QueryRequestOptions { MaxItemCount = 7 });
        while (iterator.HasMoreResults)
        {
            foreach (JObject row in await iterator.ReadNextAsync(Ct))
            {
                ids.Add((string)row["id"]!);
            }
        }

        ids.Sort(StringComparer.Ordinal);
        return [.. ids];
    }
}
