using Encryption.Custom.Cosmos;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Microsoft.Azure.Cosmos.Linq;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>Queries (SQL text, query definitions, feed ranges, LINQ) and read-many through an encryption container.</summary>
[SdkSmoke]
public sealed class QueryTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private async Task<(Container Raw, Container Encrypted, List<SecretDocument> Documents)> SeedAsync(int count = 6)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        var documents = new List<SecretDocument>();
        for (int i = 0; i < count; i++)
        {
            SecretDocument document = SecretDocument.Create($"p{i % 2}", $"Name{i}") with { Salary = i, Ssn = $"ssn-{i}" };
            string dek = i % 3 == 0 ? EncryptionFixture.Dek2 : EncryptionFixture.Dek1;
            await container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(dek, SecretDocument.SecretPaths), Ct);
            documents.Add(document);
        }

        return (raw, container, documents);
    }

    private static void AssertSameDocuments(IEnumerable<SecretDocument> expected, IEnumerable<SecretDocument> actual)
    {
        List<SecretDocument> expectedList = [.. expected.OrderBy(d => d.Id, StringComparer.Ordinal)];
        List<SecretDocument> actualList = [.. actual.OrderBy(d => d.Id, StringComparer.Ordinal)];
        Assert.Equal(expectedList.Count, actualList.Count);
        for (int i = 0; i < expectedList.Count; i++)
        {
            Assert.True(expectedList[i].ValueEquals(actualList[i]), $"document {expectedList[i].Id} differs");
        }
    }

    [Fact]
    public async Task QueryText_Typed_ReturnsDecryptedItemsOverSeveralPages()
    {
        (_, Container container, List<SecretDocument> documents) = await SeedAsync();

        IReadOnlyList<FeedResponse<SecretDocument>> pages = await container
            .GetItemQueryIterator<SecretDocument>("SELECT * FROM c", requestOptions: new QueryRequestOptions { MaxItemCount = 4 })
            .ReadAllPagesAsync(Ct);

        Assert.True(pages.Count >= 2);
        AssertSameDocuments(documents, pages.SelectMany(p => p));
    }

    [Fact]
    public async Task QueryDefinition_WithParameterOnPlainProperty_ReturnsDecryptedMatches()
    {
        (_, Container container, List<SecretDocument> documents) = await SeedAsync();
        QueryDefinition query = new QueryDefinition("SELECT * FROM c WHERE c.name = @name").WithParameter("@name", "Name3");

        List<SecretDocument> items = await container.GetItemQueryIterator<SecretDocument>(query).ReadAllAsync(Ct);

        AssertSameDocuments(documents.Where(d => d.Name == "Name3"), items);
    }

    [Fact]
    public async Task QueryStream_ReturnsDecryptedPagesWithoutMetadata()
    {
        (_, Container container, List<SecretDocument> documents) = await SeedAsync();
        using FeedIterator iterator = container.GetItemQueryStreamIterator("SELECT * FROM c", requestOptions: new QueryRequestOptions { PartitionKey = new PartitionKey("p1") });
        var seen = new List<JObject>();

        while (iterator.HasMoreResults)
        {
            using ResponseMessage page = await iterator.ReadNextAsync(Ct);
            Assert.Equal(HttpStatusCode.OK, page.StatusCode);
            JObject body = await PointOperationTests.ReadJsonAsync(page.Content);
            seen.AddRange(body["Documents"]!.Children<JObject>());
        }

        Assert.Equal(documents.Count(d => d.Pk == "p1"), seen.Count);
        Assert.All(seen, d => Assert.Null(d["_ei"]));
        Assert.Equal(documents.Where(d => d.Pk == "p1").Select(d => d.Ssn).Order(), seen.Select(d => (string)d["ssn"]!).Order());
    }

    [Fact]
    public async Task QueryWithFeedRange_ReturnsDecryptedItems()
    {
        (_, Container container, List<SecretDocument> documents) = await SeedAsync();
        IReadOnlyList<FeedRange> ranges = await container.GetFeedRangesAsync(Ct);
        var items = new List<SecretDocument>();

        foreach (FeedRange range in ranges)
        {
            items.AddRange(await container.GetItemQueryIterator<SecretDocument>(range, new QueryDefinition("SELECT * FROM c"), continuationToken: null).ReadAllAsync(Ct));
            using FeedIterator stream = container.GetItemQueryStreamIterator(range, new QueryDefinition("SELECT * FROM c"), continuationToken: null);
            using ResponseMessage page = await stream.ReadNextAsync(Ct);
            Assert.DoesNotContain("\"_ei\"", (await PointOperationTests.ReadJsonAsync(page.Content)).ToString(Newtonsoft.Json.Formatting.None), StringComparison.Ordinal);
        }

        AssertSameDocuments(documents, items);
    }

    [Fact]
    public async Task Linq_ToEncryptionFeedIteratorAndStreamIterator_ReturnDecryptedItems()
    {
        (_, Container container, List<SecretDocument> documents) = await SeedAsync();
        IQueryable<SecretDocument> query = container.GetItemLinqQueryable<SecretDocument>().Where(d => d.Pk == "p0");

        List<SecretDocument> typed = await container.ToEncryptionFeedIterator(query).ReadAllAsync(Ct);
        using FeedIterator stream = container.ToEncryptionStreamIterator(query);
        var streamed = new List<JObject>();
        while (stream.HasMoreResults)
        {
            using ResponseMessage page = await stream.ReadNextAsync(Ct);
            streamed.AddRange((await PointOperationTests.ReadJsonAsync(page.Content))["Documents"]!.Children<JObject>());
        }

        AssertSameDocuments(documents.Where(d => d.Pk == "p0"), typed);
        Assert.Equal(documents.Where(d => d.Pk == "p0").Select(d => d.Ssn).Order(), streamed.Select(d => (string)d["ssn"]!).Order());
    }

    [Fact]
    public void Linq_OnAContainerWithoutEncryptor_IsRejected()
    {
        Container plain = fixture.Client.GetContainer(fixture.Database.Id, "any");
        IQueryable<SecretDocument> query = plain.GetItemLinqQueryable<SecretDocument>();

        Assert.Throws<ArgumentException>(() => plain.ToEncryptionFeedIterator(query));
    }

    [Fact]
    public async Task Query_SelectValueOfPlainProperty_PassesThrough()
    {
        (_, Container container, List<SecretDocument> documents) = await SeedAsync();

        List<string> names = await container.GetItemQueryIterator<string>("SELECT VALUE c.name FROM c").ReadAllAsync(Ct);

        Assert.Equal(documents.Select(d => d.Name).Order(), names.Order());
    }

    [Fact]
    public async Task ReadMany_TypedAndStream_ReturnDecryptedItems()
    {
        (_, Container container, List<SecretDocument> documents) = await SeedAsync();
        List<(string, PartitionKey)> keys = [.. documents.Take(4).Select(d => (d.Id, d.PartitionKey))];

        FeedResponse<SecretDocument> typed = await container.ReadManyItemsAsync<SecretDocument>(keys, cancellationToken: Ct);
        using ResponseMessage stream = await container.ReadManyItemsStreamAsync(keys, cancellationToken: Ct);

        AssertSameDocuments(documents.Take(4), typed);
        Assert.Equal(HttpStatusCode.OK, stream.StatusCode);
        JObject body = await PointOperationTests.ReadJsonAsync(stream.Content);
        Assert.Equal(documents.Take(4).Select(d => d.Ssn).Order(), body["Documents"]!.Select(d => (string)d["ssn"]!).Order());
    }

    [Fact]
    public async Task ReadMany_DecryptableItems_DecryptOnDemand()
    {
        (_, Container container, List<SecretDocument> documents) = await SeedAsync(3);
        List<(string, PartitionKey)> keys = [.. documents.Select(d => (d.Id, d.PartitionKey))];

        FeedResponse<DecryptableItem> response = await container.ReadManyItemsAsync<DecryptableItem>(keys, cancellationToken: Ct);
        var items = new List<SecretDocument>();
        foreach (DecryptableItem item in response)
        {
            (SecretDocument document, DecryptionContext? context) = await item.GetItemAsync<SecretDocument>(Ct);
            Assert.Equal(SecretDocument.SecretPaths.Length - 1, Assert.Single(context!.DecryptionInfoList).PathsDecrypted.Count);
            items.Add(document);
        }

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        AssertSameDocuments(documents, items);
    }

    [Fact]
    public async Task Query_MixOfEncryptedAndPlainDocuments_ReturnsBothDecrypted()
    {
        (_, Container container, List<SecretDocument> documents) = await SeedAsync(2);
        SecretDocument plain = SecretDocument.Create("p0", "Plain") with { Salary = 5 };
        await container.CreateItemAsync(plain, plain.PartitionKey, cancellationToken: Ct);

        List<SecretDocument> items = await container.GetItemQueryIterator<SecretDocument>("SELECT * FROM c").ReadAllAsync(Ct);

        AssertSameDocuments([.. documents, plain], items);
    }

    [Fact]
    public async Task Query_DecryptableItems_OneTamperedDocumentFailsAlone()
    {
        (Container raw, Container container, List<SecretDocument> documents) = await SeedAsync(4);
        SecretDocument victim = documents[1];
        await TamperAsync(raw, victim, "ssn");

        List<DecryptableItem> items = await container.GetItemQueryIterator<DecryptableItem>("SELECT * FROM c").ReadAllAsync(Ct);

        Assert.Equal(documents.Count, items.Count);
        var decrypted = new List<SecretDocument>();
        var failures = new List<EncryptionException>();
        foreach (DecryptableItem item in items)
        {
            try
            {
                (SecretDocument document, DecryptionContext? context) = await item.GetItemAsync<SecretDocument>(Ct);
                Assert.NotNull(context);
                decrypted.Add(document);
            }
            catch (EncryptionException exception)
            {
                failures.Add(exception);
            }
        }

        EncryptionException failure = Assert.Single(failures);
        Assert.Equal(EncryptionErrorKind.InvalidCipherText, failure.Kind);
        Assert.Equal("/ssn", failure.Path);
        Assert.DoesNotContain(victim.Ssn, failure.ToString(), StringComparison.Ordinal);
        AssertSameDocuments(documents.Where(d => d.Id != victim.Id), decrypted);
    }

    [Fact]
    public async Task Query_Typed_TamperedDocumentFailsThePageNamingTheDocument()
    {
        (Container raw, Container container, List<SecretDocument> documents) = await SeedAsync(3);
        await TamperAsync(raw, documents[2], "salary");

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() =>
            container.GetItemQueryIterator<SecretDocument>("SELECT * FROM c").ReadAllAsync(Ct));

        Assert.Equal(EncryptionErrorKind.InvalidCipherText, error.Kind);
        Assert.Contains(documents[2].Id, error.Message, StringComparison.Ordinal);
    }

    /// <summary>Flips one base64 character of a stored encrypted value (a writer with database access but no key).</summary>
    internal static async Task TamperAsync(Container raw, SecretDocument document, string property)
    {
        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        char[] value = ((string)stored[property]!).ToCharArray();
        int index = value.Length / 2;
        value[index] = value[index] == 'A' ? 'B' : 'A';
        stored[property] = new string(value);
        using var body = PointOperationTests.ToStream(stored.ToString(Newtonsoft.Json.Formatting.None));
        using ResponseMessage replaced = await raw.ReplaceItemStreamAsync(body, document.Id, document.PartitionKey, cancellationToken: Ct);
        replaced.EnsureSuccessStatusCode();
    }
}
