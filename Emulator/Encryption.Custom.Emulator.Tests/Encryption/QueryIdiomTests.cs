using Microsoft.Azure.Cosmos.Linq;
using Person = Encryption.Custom.Emulator.Tests.Encryption.DeterministicQueryTests.Person;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>
/// The ordinary query idioms on deterministic paths (issue 23), through the real SDK against the bundled endpoint:
/// WithParameter values and literals are encrypted by the library, LINQ's equality forms reach the one check, the
/// SDK's own ToFeedIterator refuses, and the shapes the review found fail before anything is sent.
/// </summary>
public sealed class QueryIdiomTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static readonly Person s_a = new("a", "111", "222", 30, 1.5, true, "n-a");
    private static readonly Person s_b = new("b", "222", "111", 40, 2.5, false, "n-b");
    private static readonly Person s_c = new("c", "111", "333", 30, 2.5, false, "n-c");

    private async Task<Container> SeedAsync(string dek = EncryptionFixture.Dek1, params string[] accepted)
    {
        (_, Container container) = await fixture.CreateContainerAsync(options: new EncryptionContainerOptions { Policy = DeterministicQueryTests.Policy(dek, accepted) }, cancellationToken: Ct);
        foreach (Person person in new[] { s_a, s_b, s_c })
        {
            await container.CreateItemAsync(person, new PartitionKey(person.Pk), cancellationToken: Ct);
        }

        return container;
    }

    [Fact]
    public async Task WithParameterAndLiterals_OnEveryScalarType_ReturnTheMatchingDocuments()
    {
        Container container = await SeedAsync();

        Assert.Equal(["a", "c"], await SqlAsync(container, new QueryDefinition("SELECT * FROM c WHERE c.ssn = @v").WithParameter("@v", "111")));
        Assert.Equal(["a", "c"], await SqlAsync(container, new QueryDefinition("SELECT * FROM c WHERE c.ssn = '111'")));
        Assert.Equal(["a", "c"], await SqlAsync(container, new QueryDefinition("SELECT * FROM c WHERE c.age = @v").WithParameter("@v", 30)));
        Assert.Equal(["a", "c"], await SqlAsync(container, new QueryDefinition("SELECT * FROM c WHERE c.age = 30")));
        Assert.Equal(["b", "c"], await SqlAsync(container, new QueryDefinition("SELECT * FROM c WHERE c.score = 2.5")));
        Assert.Equal(["a"], await SqlAsync(container, new QueryDefinition("SELECT * FROM c WHERE c.active = true")));
        Assert.Equal(["b"], await SqlAsync(container, new QueryDefinition("SELECT * FROM c WHERE c.ssn != @v").WithParameter("@v", "111")));
        Assert.Equal(["b"], await SqlAsync(container, new QueryDefinition("SELECT * FROM c WHERE @v <> c.ssn").WithParameter("@v", "111")));
        Assert.Equal(["a", "b", "c"], await SqlAsync(container, new QueryDefinition("SELECT * FROM c WHERE c.taxId IN (@x, '222', @y)").WithParameter("@x", "111").WithParameter("@y", "333")));
        Assert.Equal(["b"], await SqlAsync(container, new QueryDefinition("SELECT * FROM c WHERE c.taxId NOT IN ('222', '333')")));
        Assert.Equal(["a", "b", "c"], await IdsAsync(container.GetItemQueryIterator<Person>("SELECT * FROM c WHERE c.ssn = '111' OR c.ssn = '222'")));
        Assert.Equal(["c"], await SqlAsync(container, new QueryDefinition("SELECT * FROM c WHERE c.ssn = @v AND c.id = @id").WithParameter("@v", "111").WithParameter("@id", "c")));
    }

    [Fact]
    public async Task AliasesBeforeWhere_AreResolvedToThePath()
    {
        Container container = await SeedAsync();

        Assert.Equal(["a", "c"], await SqlAsync(container, new QueryDefinition("SELECT VALUE c FROM c JOIN (SELECT VALUE c.ssn) s WHERE s = @v").WithParameter("@v", "111")));
        Assert.Equal(["a", "c"], await SqlAsync(container, new QueryDefinition("SELECT VALUE r FROM root r WHERE r[\"ssn\"] = @v").WithParameter("@v", "111")));
    }

    [Fact]
    public async Task DuringRotation_WithParameterLiteralAndAddParameterAsync_FindDocumentsUnderBothKeys()
    {
        (Container raw, Container before) = await fixture.CreateContainerAsync(options: new EncryptionContainerOptions { Policy = DeterministicQueryTests.Policy(EncryptionFixture.Dek1) }, cancellationToken: Ct);
        Container during = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = DeterministicQueryTests.Policy(EncryptionFixture.Dek2, EncryptionFixture.Dek1) });
        await before.CreateItemAsync(s_a, new PartitionKey(s_a.Pk), cancellationToken: Ct);
        await during.CreateItemAsync(s_b, new PartitionKey(s_b.Pk), cancellationToken: Ct);
        await during.CreateItemAsync(s_c, new PartitionKey(s_c.Pk), cancellationToken: Ct);

        Assert.Equal(["a", "c"], await SqlAsync(during, new QueryDefinition("SELECT * FROM c WHERE c.ssn = @v").WithParameter("@v", "111")));
        Assert.Equal(["a", "c"], await SqlAsync(during, new QueryDefinition("SELECT * FROM c WHERE @v = c.ssn").WithParameter("@v", "111")));
        Assert.Equal(["a", "c"], await SqlAsync(during, new QueryDefinition("SELECT * FROM c WHERE c.age = 30")));
        Assert.Equal(["b"], await SqlAsync(during, new QueryDefinition("SELECT * FROM c WHERE c.ssn != '111'")));
        Assert.Equal(["a", "c"], await SqlAsync(during, await new QueryDefinition("SELECT * FROM c WHERE c.ssn = @v").AddParameterAsync("@v", "111", "/ssn", before, Ct)));
        Assert.Equal(["a", "c"], await IdsAsync(during.ToEncryptionFeedIterator(during.GetItemLinqQueryable<Person>().Where(p => p.Ssn.Equals("111")))));
    }

    [Fact]
    public async Task LinqEqualityForms_AllReturnTheMatchingDocuments()
    {
        Container container = await SeedAsync();
        IOrderedQueryable<Person> people = container.GetItemLinqQueryable<Person>();
        string ssn = "111";
        string[] taxIds = ["222", "333"];

        Assert.Equal(["a", "c"], await IdsAsync(container.ToEncryptionFeedIterator(people.Where(p => p.Ssn == ssn))));
        Assert.Equal(["b"], await IdsAsync(container.ToEncryptionFeedIterator(people.Where(p => p.Ssn != ssn))));
        Assert.Equal(["a", "c"], await IdsAsync(container.ToEncryptionFeedIterator(people.Where(p => p.Ssn.Equals(ssn)))));
        Assert.Equal(["a", "c"], await IdsAsync(container.ToEncryptionFeedIterator(people.Where(p => string.Equals(p.Ssn, ssn)))));
        Assert.Equal(["a", "c"], await IdsAsync(container.ToEncryptionFeedIterator(people.Where(p => taxIds.Contains(p.TaxId)))));
        Assert.Equal(["a"], await IdsAsync(container.ToEncryptionFeedIterator(people.Where(p => p.Age == 30 && p.Active == true))));

        // A deterministic boolean used as a condition by itself would match nothing on ciphertext: refused.
        Assert.Throws<NotSupportedException>(() => container.ToEncryptionFeedIterator(people.Where(p => p.Active)));
    }

    [Fact]
    public async Task SdksToFeedIterator_OnAnEncryptionContainersQuery_RefusesNamingToEncryptionFeedIterator()
    {
        Container container = await SeedAsync();
        IQueryable<Person> query = container.GetItemLinqQueryable<Person>().Where(p => p.Ssn == "111");

        Exception refused = Assert.ThrowsAny<Exception>(() => query.ToFeedIterator());

        Assert.Contains("ToEncryptionFeedIterator", refused.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("SELECT VALUE c FROM c JOIN (SELECT VALUE c.notes) s WHERE s = @v", "/notes")]
    [InlineData("SELECT VALUE s FROM c.notes s WHERE s = @v", "/notes")]
    [InlineData("SELECT * FROM c WHERE c.ssn = LOWER(@v)", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c.ssn = @v + 'x'", "/ssn")]
    [InlineData("SELECT VALUE MAX(c.notes) FROM c", "/notes")]
    [InlineData("SELECT c.age, COUNT(1) AS n FROM c GROUP BY c.age", "/age")]
    [InlineData("SELECT * FROM c WHERE c[\"Ssn\"] > @v", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c[\"\\u0073sn\"] > @v", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c.SSN = @v ?? 'x'", "/ssn")]
    [InlineData("SELECT * FROM c WHERE c.ssn = @v -- comment", "/ssn")]
    public async Task ReviewShapes_AreRefusedBeforeAnythingIsSent(string text, string path)
    {
        Container container = await SeedAsync();

        NotSupportedException refused = Assert.Throws<NotSupportedException>(() => container.GetItemQueryIterator<Person>(new QueryDefinition(text).WithParameter("@v", "111")));

        Assert.Contains($"'{path}'", refused.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("111", refused.Message, StringComparison.Ordinal);
    }

    private static Task<string[]> SqlAsync(Container container, QueryDefinition query) =>
        IdsAsync(container.GetItemQueryIterator<Person>(query));

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
}
