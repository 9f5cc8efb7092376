using Microsoft.Azure.Cosmos.Linq;
using Newtonsoft.Json;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>
/// Equality queries on deterministically encrypted properties (docs/queries.md), through the real SDK against the
/// bundled endpoint: SQL parameters, LINQ, IN lists, refused operators, readers, and a key rotation.
/// </summary>
public sealed class DeterministicQueryTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    internal static ContainerEncryptionPolicy Policy(string dek, params string[] accepted) =>
        new(dek,
        [
            new EncryptionPolicyIncludedPath("/ssn") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/taxId") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/age") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/score") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/active") { EncryptionType = PathEncryptionType.Deterministic },
            new EncryptionPolicyIncludedPath("/notes"),
        ])
        {
            AcceptedDataEncryptionKeyIds = accepted,
        };

    private static readonly Person s_a = new("a", "111", "222", 30, 1.5, true, "n-a");
    private static readonly Person s_b = new("b", "222", "111", 40, 2.5, false, "n-b");
    private static readonly Person s_c = new("c", "111", "333", 30, 2.5, false, "n-c");

    private async Task<(Container Raw, Container Container)> SeedAsync()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: new EncryptionContainerOptions { Policy = Policy(EncryptionFixture.Dek1) }, cancellationToken: Ct);
        foreach (Person person in new[] { s_a, s_b, s_c })
        {
            await container.CreateItemAsync(person, new PartitionKey(person.Pk), cancellationToken: Ct);
        }

        return (raw, container);
    }

    private static async Task<string[]> IdsAsync(FeedIterator<Person> iterator)
    {
        var ids = new List<string>();
        using (iterator)
        {
            while (iterator.HasMoreResults)
            {
                foreach (Person person in await iterator.ReadNextAsync(Ct))
                {
                    ids.Add(person.Id);
                }
            }
        }

        return [.. ids.Order(StringComparer.Ordinal)];
    }

    private static Task<string[]> SqlAsync(Container container, QueryDefinition query) =>
        IdsAsync(container.GetItemQueryIterator<Person>(query));

    [Fact]
    public async Task SqlParameter_OnStringIntegerDoubleAndBooleanPaths_ReturnsExactlyTheMatchingDocuments()
    {
        (_, Container container) = await SeedAsync();

        // "111" is also B's taxId: a different path, so a different ciphertext.
        Assert.Equal(["a", "c"], await SqlAsync(container, await new QueryDefinition("SELECT * FROM c WHERE c.ssn = @v").AddParameterAsync("@v", "111", "/ssn", container, Ct)));
        Assert.Equal(["b"], await SqlAsync(container, await new QueryDefinition("SELECT * FROM c WHERE c.taxId = @v").AddParameterAsync("@v", "111", "/taxId", container, Ct)));
        Assert.Equal(["a", "c"], await SqlAsync(container, await new QueryDefinition("SELECT * FROM c WHERE c.age = @v").AddParameterAsync("@v", 30, "/age", container, Ct)));
        Assert.Equal(["b", "c"], await SqlAsync(container, await new QueryDefinition("SELECT * FROM c WHERE c.score = @v").AddParameterAsync("@v", 2.5, "/score", container, Ct)));
        Assert.Equal(["a"], await SqlAsync(container, await new QueryDefinition("SELECT * FROM c WHERE c.active = @v").AddParameterAsync("@v", true, "/active", container, Ct)));
        Assert.Equal(["b", "c"], await SqlAsync(container, await new QueryDefinition("SELECT * FROM c WHERE c.active != @v").AddParameterAsync("@v", true, "/active", container, Ct)));
    }

    [Fact]
    public async Task SqlParameters_InAnInList_ReturnEveryMatch()
    {
        (_, Container container) = await SeedAsync();
        QueryDefinition query = new("SELECT * FROM c WHERE c.taxId IN (@x, @y)");
        await query.AddParameterAsync("@x", "222", "/taxId", container, Ct);
        await query.AddParameterAsync("@y", "333", "/taxId", container, Ct);

        Assert.Equal(["a", "c"], await SqlAsync(container, query));
    }

    [Fact]
    public async Task Linq_EqualityNotEqualAndContains_AreRewrittenToCiphertext()
    {
        (_, Container container) = await SeedAsync();
        IOrderedQueryable<Person> people = container.GetItemLinqQueryable<Person>();
        string ssn = "111";
        string[] taxIds = ["222", "333"];

        Assert.Equal(["a", "c"], await IdsAsync(container.ToEncryptionFeedIterator(people.Where(p => p.Ssn == ssn))));
        Assert.Equal(["a", "c"], await IdsAsync(container.ToEncryptionFeedIterator(people.Where(p => p.Age == 30))));
        Assert.Equal(["b", "c"], await IdsAsync(container.ToEncryptionFeedIterator(people.Where(p => p.Score == 2.5))));
        Assert.Equal(["b", "c"], await IdsAsync(container.ToEncryptionFeedIterator(people.Where(p => p.Active != true))));
        Assert.Equal(["a", "c"], await IdsAsync(container.ToEncryptionFeedIterator(people.Where(p => taxIds.Contains(p.TaxId)))));
    }

    [Fact]
    public async Task RefusedOperators_FailBeforeTheRequestIsSent()
    {
        (_, Container container) = await SeedAsync();
        IOrderedQueryable<Person> people = container.GetItemLinqQueryable<Person>();

        Assert.Throws<NotSupportedException>(() => container.ToEncryptionFeedIterator(people.OrderBy(p => p.Age)));
        Assert.Throws<NotSupportedException>(() => container.ToEncryptionFeedIterator(people.Where(p => p.Age > 18)));
        Assert.Throws<NotSupportedException>(() => container.ToEncryptionFeedIterator(people.Where(p => p.Ssn.StartsWith("1"))));
        Assert.Throws<NotSupportedException>(() => container.ToEncryptionFeedIterator(people.Where(p => p.Notes == "n-a")));
        Assert.Throws<NotSupportedException>(() => container.GetItemQueryIterator<Person>(new QueryDefinition("SELECT * FROM c WHERE c.score < 2")));
        await Assert.ThrowsAsync<NotSupportedException>(() => new QueryDefinition("SELECT * FROM c WHERE c.notes = @n").AddParameterAsync("@n", "n-a", "/notes", container, Ct));
        await Assert.ThrowsAsync<NotSupportedException>(() => new QueryDefinition("SELECT * FROM c WHERE c.pk = @n").AddParameterAsync("@n", "p", "/pk", container, Ct));
    }

    [Fact]
    public async Task AddParameterAsync_BadArguments_AreRefusedWithoutEchoingTheValue()
    {
        (Container raw, Container container) = await SeedAsync();
        const string Secret = "078-05-1120-secret";
        var query = new QueryDefinition("SELECT * FROM c WHERE c.ssn = @s");

        // Objects and arrays have no canonical serialization, so they cannot be compared by ciphertext.
        EncryptionException objectValue = await Assert.ThrowsAsync<EncryptionException>(() => query.AddParameterAsync("@s", new { value = Secret }, "/ssn", container, Ct));
        EncryptionException arrayValue = await Assert.ThrowsAsync<EncryptionException>(() => query.AddParameterAsync("@s", new[] { Secret }, "/ssn", container, Ct));
        ArgumentException name = await Assert.ThrowsAsync<ArgumentException>(() => query.AddParameterAsync("s", Secret, "/ssn", container, Ct));
        ArgumentException unwrapped = await Assert.ThrowsAsync<ArgumentException>(() => query.AddParameterAsync("@s", Secret, "/ssn", raw, Ct));
        NotSupportedException undeclared = await Assert.ThrowsAsync<NotSupportedException>(() => query.AddParameterAsync("@s", Secret, "/nowhere", container, Ct));

        Assert.All(
            new Exception[] { objectValue, arrayValue, name, unwrapped, undeclared },
            e => Assert.DoesNotContain(Secret, e.ToString(), StringComparison.Ordinal));
        Assert.Equal("name", name.ParamName);
        Assert.Equal("container", unwrapped.ParamName);
    }

    [Fact]
    public async Task DeterministicDocument_IsReadByTheNewtonsoftProcessor()
    {
        (Container raw, _) = await SeedAsync();
        Container newtonsoft = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { JsonProcessor = JsonProcessor.Newtonsoft });

        Person read = (await newtonsoft.ReadItemAsync<Person>("b", new PartitionKey(s_b.Pk), cancellationToken: Ct)).Resource;
        Newtonsoft.Json.Linq.JObject stored = await RawDocuments.ReadAsync(raw, "b", new PartitionKey(s_b.Pk), Ct);

        Assert.Equal(s_b, read);
        Assert.NotEqual("222", (string?)stored["ssn"]);
    }

    [Fact]
    public async Task DeterministicValues_UnderTheKnownAnswerKey_AreStoredAsThePublishedVectors()
    {
        // docs/wire-format.md "Deterministic values": cells any format 3 reader (Microsoft's included) decrypts as it
        // decrypts a randomized one, since the IV travels in the cell. Written here through the SDK and the endpoint.
        await fixture.AddKnownAnswerDekAsync("katDek", Ct);
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: new EncryptionContainerOptions { Policy = Policy("katDek") }, cancellationToken: Ct);
        var person = new Person("kat", "078-05-1120", "078-05-1120", 42, -2.5, true, "n");

        await container.CreateItemAsync(person, new PartitionKey(person.Pk), cancellationToken: Ct);

        Newtonsoft.Json.Linq.JObject stored = await RawDocuments.ReadAsync(raw, "kat", new PartitionKey(person.Pk), Ct);
        Assert.Equal("AgEGWEj7E0qZ0pF8+aVUvV3D24fYBN+GVIGpbSFhhLHz8XA/fWbFTS8HSPBjNG6g82TsWU3ggPo6Fd62hb8k51DF", (string?)stored["ssn"]);
        Assert.Equal("AgHoiI3I91O3PTaS+9PNHO3XSMfLpuPjl0C/P0jUEPKkfTQmMAYULxxDfXgzCp8vQir42pY65RTro6zXokcbB5H8", (string?)stored["taxId"]);
        Assert.Equal("BAG3Z5coUq3faG0laqRRYJOrs1ipg6reU97xnHpQCPpFqjCI+GsxGrI7Zs+76TTeccrvVAX21rRa49Cm5+a/MgM2", (string?)stored["age"]);
        Assert.Equal("AwHQUJOf3isSoeVzqqEK03G5uYScTRK1XXbJM253yO42Inw4uhqGhGUvdlg8ellYQFUBHcK2uyrl7IGjz2+sEDXw", (string?)stored["score"]);
        Assert.Equal("BQENo0khH/3uTc4RGpm6pHI2+PZJTsAMnpjw+a5lJWqm3imT2JN/KE0Letm6rFQTsEQ3V7nyMhC0RvS/iK3fiQXu", (string?)stored["active"]);
        Assert.Equal("MdeAeadAes256CbcHmac256Randomized", (string?)stored["_ei"]!["_ea"]);
        Container newtonsoft = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { JsonProcessor = JsonProcessor.Newtonsoft });
        Assert.Equal(person, (await newtonsoft.ReadItemAsync<Person>("kat", new PartitionKey(person.Pk), cancellationToken: Ct)).Resource);
    }

    [Fact]
    public async Task QueryDuringRotation_FindsDocumentsUnderBothKeys()
    {
        (Container raw, Container before) = await fixture.CreateContainerAsync(options: new EncryptionContainerOptions { Policy = Policy(EncryptionFixture.Dek1) }, cancellationToken: Ct);
        Container during = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = Policy(EncryptionFixture.Dek2, EncryptionFixture.Dek1) });
        await before.CreateItemAsync(s_a, new PartitionKey(s_a.Pk), cancellationToken: Ct);
        await during.CreateItemAsync(s_c, new PartitionKey(s_c.Pk), cancellationToken: Ct);

        QueryDefinition query = await new QueryDefinition("SELECT * FROM c WHERE c.ssn = @v").AddParameterAsync("@v", "111", "/ssn", during, Ct);
        QueryDefinition list = new("SELECT * FROM c WHERE c.ssn IN (@v, @w)");
        await list.AddParameterAsync("@v", "111", "/ssn", during, Ct);
        await list.AddParameterAsync("@w", "999", "/ssn", during, Ct);

        Assert.Equal(["a", "c"], await SqlAsync(during, query));
        Assert.Equal(["a", "c"], await SqlAsync(during, list));
        Assert.Equal(["a", "c"], await IdsAsync(during.ToEncryptionFeedIterator(during.GetItemLinqQueryable<Person>().Where(p => p.Ssn == "111"))));
        Assert.Equal(["a"], await SqlAsync(before, await new QueryDefinition("SELECT * FROM c WHERE c.ssn = @v").AddParameterAsync("@v", "111", "/ssn", before, Ct)));
    }

    public sealed record Person(
        [property: JsonProperty("id")] string Id,
        [property: JsonProperty("ssn")] string Ssn,
        [property: JsonProperty("taxId")] string TaxId,
        [property: JsonProperty("age")] int Age,
        [property: JsonProperty("score")] double Score,
        [property: JsonProperty("active")] bool Active,
        [property: JsonProperty("notes")] string Notes)
    {
        [JsonProperty("pk")]
        public string Pk => "p0";
    }
}
