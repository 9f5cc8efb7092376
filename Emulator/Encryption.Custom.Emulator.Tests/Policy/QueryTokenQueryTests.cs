using System.Globalization;
using Encryption.Custom.Emulator.Tests.Encryption;
using FsCheck;
using FsCheck.Fluent;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Policy;

/// <summary>
/// Range and prefix queries on encrypted paths (docs/queries.md "Range and prefix queries"), differential: generated
/// queries (bounds inside, at and beyond the domain, open and closed ends, empty ranges, Unicode prefixes with and
/// without case, a nested selector; with and without a key rotation in progress) run through the encryption container and, as the same text and parameters, against a plaintext
/// container holding the same documents; both must return exactly the same rows, with small pages, for both processors.
/// </summary>
public sealed class QueryTokenQueryTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static readonly string[] s_letters = ["a", "b", "A", "\u00e9", "\u00c9", "e\u0301", "\u0436", "\u0416", "\U0001F600", "z"];

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public static TheoryData<JsonProcessor> Processors => [JsonProcessor.Stream, JsonProcessor.Newtonsoft];

    private static EncryptionContainerOptions WithTokens(JsonProcessor processor) => new()
    {
        JsonProcessor = processor,
        Policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1,
        [
            new EncryptionPolicyIncludedPath("/name") { Queries = new PrefixQueryOptions { MinLength = 1, MaxLength = 3, IgnoreCase = true } },
            new EncryptionPolicyIncludedPath("/age") { Queries = new IntegerRangeQueryOptions(0, 120) },
            new EncryptionPolicyIncludedPath("/score") { Queries = new DecimalRangeQueryOptions(-100, 100, 1) },
            new EncryptionPolicyIncludedPath("/dob") { Queries = new DateTimeRangeQueryOptions(new DateTimeOffset(1900, 1, 1, 0, 0, 0, TimeSpan.Zero), new DateTimeOffset(2100, 1, 1, 0, 0, 0, TimeSpan.Zero)) { Resolution = TimeSpan.FromDays(1) } },
            new EncryptionPolicyIncludedPath("/address/zip") { Queries = new IntegerRangeQueryOptions(0, 99999) },
            new EncryptionPolicyIncludedPath("/address/city"),
        ]),
    };

    // Dates in one form (UTC, seven fraction digits), so the plaintext container's string order is the instants' order.
    private static string Date(int day) => new DateTime(1950, 1, 1, 6, 0, 0, DateTimeKind.Utc).AddDays(day * 97).AddTicks(day * 1234567).ToString("yyyy-MM-ddTHH:mm:ss.fffffffZ", CultureInfo.InvariantCulture);

    private static JObject Person(int i, string name) => new()
    {
        ["id"] = "p" + i.ToString(CultureInfo.InvariantCulture),
        ["pk"] = "p" + (i % 3).ToString(CultureInfo.InvariantCulture),
        ["name"] = name,
        ["age"] = (i * 37) % 121,
        ["score"] = Math.Round(((i * 7919) % 2001 / 10.0) - 100, 1),
        ["dob"] = Date(i),

        // A nested token path; some documents hold no zip there (no address, a null one, one without a zip).
        ["address"] = (i % 7) switch
        {
            0 => null,
            1 => new JObject { ["city"] = "Rome" },
            _ => new JObject { ["city"] = "C" + i.ToString(CultureInfo.InvariantCulture), ["zip"] = (i * 2477) % 100000 },
        },
    };

    private static Gen<string> Text(int min, int max) =>
        from length in Gen.Choose(min, max)
        from letters in Gen.ArrayOf(Gen.Elements(s_letters), length)
        select string.Concat(letters);

    // One generated query: its text and parameters (the same for both containers).
    private static Gen<(string Text, (string Name, object Value)[] Parameters)> Queries()
    {
        Gen<(string, (string, object)[])> age =
            from a in Gen.Choose(-10, 130)
            from b in Gen.Choose(-10, 130)
            from shape in Gen.Choose(0, 5)
            select shape switch
            {
                0 => ("SELECT * FROM c WHERE c.age >= @a AND c.age < @b", new (string, object)[] { ("@a", a), ("@b", b) }),
                1 => ("SELECT * FROM c WHERE c.age > @a", [("@a", a)]),
                2 => ("SELECT * FROM c WHERE @a <= c.age", [("@a", a)]),
                3 => ($"SELECT VALUE c FROM c WHERE c.age BETWEEN {a} AND {b}", []),
                4 => ("SELECT * FROM c WHERE c.age <= @b AND c.pk = 'p1'", [("@b", b)]),
                _ => ($"SELECT * FROM c WHERE c.age >= {a} AND c.age <= {a}", []),
            };
        Gen<(string, (string, object)[])> score =
            from a in Gen.Choose(-1100, 1100)
            from b in Gen.Choose(-1100, 1100)
            select ("SELECT * FROM c WHERE c.score > @a AND c.score <= @b", new (string, object)[] { ("@a", a / 10.0), ("@b", b / 10.0 + 0.05) });
        Gen<(string, (string, object)[])> dob =
            from a in Gen.Choose(-5, 45)
            from b in Gen.Choose(-5, 45)
            from exact in Gen.Elements(true, false)
            select ("SELECT * FROM c WHERE c.dob >= @a AND c.dob < @b", new (string, object)[] { ("@a", exact ? Date(a) : Date(a)[..10] + "T00:00:00.0000000Z"), ("@b", Date(b)) });
        Gen<(string, (string, object)[])> prefix =
            from p in Text(1, 5)
            from ignoreCase in Gen.Elements(true, false)
            select (ignoreCase ? "SELECT * FROM c WHERE STARTSWITH(c.name, @p, true)" : "SELECT * FROM c WHERE STARTSWITH(c.name, @p)", new (string, object)[] { ("@p", p) });
        Gen<(string, (string, object)[])> zip =
            from a in Gen.Choose(-10, 100010)
            from b in Gen.Choose(-10, 100010)
            from bracketed in Gen.Elements(true, false)
            select (bracketed ? "SELECT * FROM c WHERE c[\"address\"][\"zip\"] >= @a AND c.address[\"zip\"] <= @b" : "SELECT * FROM c WHERE c.address.zip > @a AND c.address.zip < @b", new (string, object)[] { ("@a", Math.Min(a, b)), ("@b", Math.Max(a, b)) });
        return Gen.OneOf(age, score, dob, prefix, zip);
    }

    public static TheoryData<JsonProcessor, bool> ProcessorsAndRotation => new()
    {
        { JsonProcessor.Stream, false },
        { JsonProcessor.Newtonsoft, false },
        { JsonProcessor.Stream, true },
        { JsonProcessor.Newtonsoft, true },
    };

    [Theory]
    [MemberData(nameof(ProcessorsAndRotation))]
    public async Task GeneratedRangeAndPrefixQueries_ReturnTheRowsOfAPlaintextContainer(JsonProcessor processor, bool rotating)
    {
        (Container raw, Container encrypted) = await fixture.CreateContainerAsync(options: WithTokens(processor), cancellationToken: Ct);
        (Container plain, Container _) = await fixture.CreateContainerAsync(cancellationToken: Ct);

        // During a rotation every other document is written under the new key, and the queries run under the policy
        // that writes with it and still accepts the old one: tokens under both keys must be asked for.
        Container writer = encrypted;
        if (rotating)
        {
            ContainerEncryptionPolicy old = WithTokens(processor).Policy!;
            var next = new ContainerEncryptionPolicy(EncryptionFixture.Dek2, old.IncludedPaths) { AcceptedDataEncryptionKeyIds = [EncryptionFixture.Dek1] };
            writer = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { JsonProcessor = processor, Policy = next });
        }

        // Fixed names (a seeded generator): the queries are what FsCheck varies.
        var random = new Random(7);
        string[] names = [.. Enumerable.Range(0, 40).Select(_ => string.Concat(Enumerable.Range(0, random.Next(0, 7)).Select(_ => s_letters[random.Next(s_letters.Length)])))];
        for (int i = 0; i < names.Length; i++)
        {
            JObject person = Person(i, names[i]);
            await (i % 2 == 0 ? encrypted : writer).CreateItemAsync(person, new PartitionKey((string)person["pk"]!), cancellationToken: Ct);
            await plain.CreateItemAsync(person, new PartitionKey((string)person["pk"]!), cancellationToken: Ct);
        }

        Container reader = writer;

        int nonEmpty = 0;
        Prop.ForAll(Queries().ToArbitrary(), query =>
        {
            // The bundled endpoint has no three-argument STARTSWITH: a case-insensitive prefix is compared with the
            // documents' names here (ordinal, ignoring case), every other query with the plaintext container.
            string[] expected = query.Text.Contains("true)", StringComparison.Ordinal)
                ? [.. names.Select((n, i) => (Name: n, Id: "p" + i.ToString(CultureInfo.InvariantCulture))).Where(x => x.Name.StartsWith((string)query.Parameters[0].Value, StringComparison.OrdinalIgnoreCase)).Select(x => x.Id).Order(StringComparer.Ordinal)]
                : RunAsync(plain, query).GetAwaiter().GetResult();
            string[] actual = RunAsync(reader, query).GetAwaiter().GetResult();
            nonEmpty += expected.Length > 0 ? 1 : 0;
            Assert.True(expected.SequenceEqual(actual), $"{query.Text} [{string.Join(", ", query.Parameters.Select(p => $"{p.Name}={p.Value}"))}]: expected {string.Join(",", expected)}, got {string.Join(",", actual)}");
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(60));
        Assert.True(nonEmpty >= 10, $"only {nonEmpty} queries returned rows: the generator no longer exercises matches");
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task Linq_RangeAndStartsWith_ReturnExactlyTheMatchingRows(JsonProcessor processor)
    {
        (Container _, Container encrypted) = await fixture.CreateContainerAsync(options: WithTokens(processor), cancellationToken: Ct);
        string[] names = ["Ada", "Adam", "Adele", "Bob", "Ad\u00e9le", "ad"];
        for (int i = 0; i < names.Length; i++)
        {
            JObject person = Person(i, names[i]);
            await encrypted.CreateItemAsync(person, new PartitionKey((string)person["pk"]!), cancellationToken: Ct);
        }

        int low = 30;
        int high = 80;
        IQueryable<Row> range = encrypted.GetItemLinqQueryable<Row>().Where(r => r.Age >= low && r.Age < high);
        string prefix = "Ade";
        IQueryable<Row> startsWith = encrypted.GetItemLinqQueryable<Row>().Where(r => r.Name.StartsWith(prefix));
        string[] expected = [.. Enumerable.Range(0, names.Length).Where(i => Person(i, names[i])["age"]!.Value<int>() is >= 30 and < 80).Select(i => "p" + i.ToString(CultureInfo.InvariantCulture))];
        string[] ranged = await ReadIdsAsync(encrypted.ToEncryptionFeedIterator(range));
        Assert.NotEmpty(expected);
        Assert.Equal(expected, ranged);
        string[] started = await ReadIdsAsync(encrypted.ToEncryptionFeedIterator(startsWith));
        Assert.Equal(new[] { "p2" }, started);

        // A nested token path: zips 4954 (p2), 7431 (p3), 9908 (p4), 12385 (p5); p0 has no address, p1 no zip.
        IQueryable<Row> nested = encrypted.GetItemLinqQueryable<Row>().Where(r => r.Address!.Zip >= 5000 && r.Address.Zip < 12000);
        Assert.Equal(new[] { "p3", "p4" }, await ReadIdsAsync(encrypted.ToEncryptionFeedIterator(nested)));
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task DuringARotation_RangeAndPrefixQueriesFindDocumentsUnderEveryAcceptedKey(JsonProcessor processor)
    {
        (Container raw, Container before) = await fixture.CreateContainerAsync(options: WithTokens(processor), cancellationToken: Ct);
        ContainerEncryptionPolicy old = WithTokens(processor).Policy!;
        var rotating = new ContainerEncryptionPolicy(EncryptionFixture.Dek2, old.IncludedPaths) { AcceptedDataEncryptionKeyIds = [EncryptionFixture.Dek1] };
        Container during = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { JsonProcessor = processor, Policy = rotating });
        await before.CreateItemAsync(Person(1, "Grace"), new PartitionKey("p1"), cancellationToken: Ct);
        await during.CreateItemAsync(Person(4, "Greta"), new PartitionKey("p1"), cancellationToken: Ct);
        await during.CreateItemAsync(Person(2, "Linus"), new PartitionKey("p2"), cancellationToken: Ct);
        Assert.Equal(EncryptionFixture.Dek1, (string)(await RawDocuments.ReadAsync(raw, "p1", new PartitionKey("p1"), Ct))["_ei"]!["_en"]!);

        // Ages 37 (p1), 74 (p2) and 27 (p4): keys dek1, dek2 and dek2.
        string[] byRange = await RunAsync(during, ("SELECT * FROM c WHERE c.age BETWEEN 20 AND 40", []));
        string[] byPrefix = await RunAsync(during, ("SELECT * FROM c WHERE STARTSWITH(c.name, 'Gr')", []));
        Assert.Equal(new[] { "p1", "p4" }, byRange);
        Assert.Equal(new[] { "p1", "p4" }, byPrefix);
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task AProjection_OfTokenPaths_IsDecryptedWithoutTheTokens(JsonProcessor processor)
    {
        (Container _, Container encrypted) = await fixture.CreateContainerAsync(options: WithTokens(processor), cancellationToken: Ct);
        await encrypted.CreateItemAsync(Person(1, "Grace"), new PartitionKey("p1"), cancellationToken: Ct);

        // The policy binds (its nested selector's default), so a projection carries the envelope, the id and the partition key.
        using FeedIterator<JObject> iterator = encrypted.GetItemQueryIterator<JObject>("SELECT c.id, c.pk, c.name, c.age, c.address, c._ei, c._ex, c._q FROM c");
        JObject row = Assert.Single(await iterator.ReadNextAsync(Ct));
        Assert.True(JToken.DeepEquals(new JObject { ["id"] = "p1", ["pk"] = "p1", ["name"] = "Grace", ["age"] = 37, ["address"] = new JObject { ["city"] = "Rome" } }, row), row.ToString());
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task ShapesThatCannotBeServed_AreRefusedBeforeSending(JsonProcessor processor)
    {
        (Container _, Container encrypted) = await fixture.CreateContainerAsync(options: WithTokens(processor), cancellationToken: Ct);
        string[] refused =
        [
            "SELECT c.id FROM c WHERE c.age > 3",
            "SELECT TOP 2 * FROM c WHERE c.age > 3",
            "SELECT * FROM c WHERE c.age > 3 OFFSET 0 LIMIT 2",
            "SELECT * FROM c WHERE c.age > 3 OR c.pk = 'p1'",
            "SELECT * FROM c WHERE NOT (c.age > 3)",
            "SELECT * FROM c ORDER BY c.age",
            "SELECT * FROM c WHERE c.age > c.score",
            "SELECT * FROM c WHERE STARTSWITH(c.name, '')",
            "SELECT * FROM c WHERE c.age > '3'",
            "SELECT * FROM c WHERE c.address.zip > 3 OR c.pk = 'p1'",
            "SELECT * FROM c ORDER BY c.address.zip",
            "SELECT c.address FROM c WHERE c.address.zip > 3",
            "SELECT * FROM c WHERE c.address.city >= 'C'",
        ];
        foreach (string text in refused)
        {
            await Assert.ThrowsAsync<NotSupportedException>(async () =>
            {
                using FeedIterator iterator = encrypted.GetItemQueryStreamIterator(new QueryDefinition(text));
                using ResponseMessage page = await iterator.ReadNextAsync(Ct);
            });
        }
    }

    private static async Task<string[]> ReadIdsAsync(FeedIterator<Row> iterator)
    {
        var ids = new List<string>();
        using (iterator)
        {
            while (iterator.HasMoreResults)
            {
                ids.AddRange((await iterator.ReadNextAsync(Ct)).Select(r => r.Id));
            }
        }

        ids.Sort(StringComparer.Ordinal);
        return [.. ids];
    }

    private sealed record Row(
        [property: Newtonsoft.Json.JsonProperty("id")] string Id,
        [property: Newtonsoft.Json.JsonProperty("name")] string Name,
        [property: Newtonsoft.Json.JsonProperty("age")] int Age,
        [property: Newtonsoft.Json.JsonProperty("address")] Address? Address);

    private sealed record Address(
        [property: Newtonsoft.Json.JsonProperty("city")] string? City,
        [property: Newtonsoft.Json.JsonProperty("zip")] int? Zip);

    private static async Task<string[]> RunAsync(Container container, (string Text, (string Name, object Value)[] Parameters) query)
    {
        var definition = new QueryDefinition(query.Text);
        foreach ((string name, object value) in query.Parameters)
        {
            definition = definition.WithParameter(name, value);
        }

        var ids = new List<string>();
        using FeedIterator<JObject> iterator = container.GetItemQueryIterator<JObject>(definition, requestOptions: new QueryRequestOptions { MaxItemCount = 3 });
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
