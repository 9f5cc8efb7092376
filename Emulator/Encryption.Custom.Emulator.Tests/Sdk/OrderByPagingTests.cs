using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// ORDER BY read page by page, each page from a new iterator resumed from the last continuation (as a web
/// application pages), across partition key ranges, with ties and mixed types, sometimes with a range split between
/// two pages: every document comes back exactly once, in Cosmos DB's order (undefined &lt; null &lt; false &lt; true &lt;
/// numbers &lt; strings, reversed for DESC), the order a test-side sort gives and, without a split, the very order of one
/// unpaged read. Generated from seeds (bounded: a few cases of at most 60 documents); a failure names its seed.
/// Before the bundled endpoint ordered ties by the document part of their rid, as the SDK's merge compares them, ties
/// came back short: 100 documents with 7 values in pages of 10 gave 76-97, ORDER BY c._ts 30.
/// </summary>
public sealed class OrderByPagingTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static readonly JToken?[] s_values = [null, JValue.CreateNull(), false, true, 0, 1, 2, 2.5, -3, "a", "b", "B"];

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public static TheoryData<int> Seeds => [11, 23, 37, 41, 59, 73, 89, 97, 101, 131];

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task PagedFromContinuations_ReturnsEveryDocumentOnceInCosmosOrder(int seed)
    {
        var random = new Random(seed);
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        int count = random.Next(20, 61);
        var documents = new Dictionary<string, JObject>();
        for (int i = 0; i < count; i++)
        {
            var document = new JObject { ["id"] = $"d{i:D2}", ["pk"] = $"p{random.Next(9)}" };
            if (s_values[random.Next(s_values.Length)] is { } value)
            {
                document["v"] = value.DeepClone(); // else "v" is undefined
            }

            documents[(string)document["id"]!] = document;
        }

        await Task.WhenAll(documents.Values.Select(d => container.CreateItemAsync(d, new PartitionKey((string)d["pk"]!), cancellationToken: Ct)));
        bool descending = random.Next(2) == 0;
        int pageSize = random.Next(1, 12);
        string sql = "SELECT * FROM c ORDER BY c.v" + (descending ? " DESC" : string.Empty);

        List<string> unpaged = Ids(await container.GetItemQueryIterator<JObject>(sql).ReadAllAsync(Ct));
        (List<string> paged, bool split) = await ReadPagedAsync(container, sql, pageSize, random);

        string context = $"seed {seed}: {count} documents, {sql}, pages of {pageSize}{(split ? ", a split between pages" : string.Empty)}";
        Assert.True(paged.Count == count && paged.Distinct().Count() == count, $"{context}: {paged.Count} rows, {paged.Distinct().Count()} distinct, expected {count}.");
        List<int> ranks = paged.Select(id => Rank(documents[id]["v"])).ToList();
        Assert.True(ranks.SequenceEqual(descending ? ranks.OrderDescending() : ranks.Order()), $"{context}: not in Cosmos DB's order.");
        Assert.Equal(count, unpaged.Count);
        if (!split)
        {
            Assert.Equal(unpaged, paged);
        }
    }

    private async Task<(List<string> Ids, bool Split)> ReadPagedAsync(Container container, string sql, int pageSize, Random random)
    {
        var ids = new List<string>();
        bool split = false;
        string? continuation = null;
        do
        {
            using FeedIterator<JObject> iterator = container.GetItemQueryIterator<JObject>(sql, continuation, new QueryRequestOptions { MaxItemCount = pageSize });
            FeedResponse<JObject> page = await iterator.ReadNextAsync(Ct);
            ids.AddRange(Ids(page));
            continuation = page.ContinuationToken;
            if (continuation is not null && !split && random.Next(4) == 0)
            {
                split = await PartitionSplits.SplitAsync(fixture.Endpoint, container, cancellationToken: Ct);
            }
        }
        while (continuation is not null);
        return (ids, split);
    }

    private static List<string> Ids(IEnumerable<JObject> documents) => documents.Select(d => (string)d["id"]!).ToList();

    // A value's place in Cosmos DB's order, as one number: type first, then value within numbers and strings.
    private static int Rank(JToken? value) => value switch
    {
        null => 0,
        { Type: JTokenType.Null } => 1,
        { Type: JTokenType.Boolean } => (bool)value ? 3 : 2,
        { Type: JTokenType.Integer or JTokenType.Float } => 100 + (int)Math.Round(((double)value + 10) * 10),
        { Type: JTokenType.String } => 1000 + string.CompareOrdinal((string)value!, "A") + 100,
        _ => throw new ArgumentOutOfRangeException(nameof(value), value.Type, "not generated"),
    };
}
