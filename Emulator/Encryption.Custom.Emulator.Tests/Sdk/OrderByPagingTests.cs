using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// ORDER BY read page by page, each page from a new iterator resumed from the last continuation (as a web
/// application pages), across partition key ranges, with ties and mixed types, sometimes with a range split between
/// two pages: every document comes back, in Cosmos DB's order (undefined &lt; null &lt; false &lt; true &lt; numbers &lt;
/// strings, reversed for DESC), the order a test-side sort gives and, without a split, exactly once and in the very
/// order of one unpaged read. Generated from seeds (bounded: a few cases of at most 60 documents); a failure names its
/// seed. Before the bundled endpoint ordered ties by the document part of their rid, as the SDK's merge compares them,
/// ties came back short: 100 documents with 7 values in pages of 10 gave 76-97, ORDER BY c._ts 30.
/// <para>
/// Across a split the SDK promises less, and so does Cosmos DB: the SDK breaks ties between ranges by taking the
/// left-most range first and its continuation names one range, so when the range it stopped in splits inside a tie
/// group, the next continuation names the left child and the right child is sent the tie value without a rid: the
/// ties that child holds and that came back before the split come back again (found by CI: seed 23, pages of 1, 51
/// rows). The endpoint answers those requests as Cosmos DB does; the test asserts exactly that much: nothing lost,
/// the order kept, and a repeat only of a row returned before the split with the value the split came at.
/// </para>
/// </summary>
public sealed class OrderByPagingTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static readonly JToken?[] s_values = [null, JValue.CreateNull(), false, true, 0, 1, 2, 2.5, -3, "a", "b", "B"];

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public static TheoryData<int> Seeds => [11, 23, 37, 41, 59, 73, 89, 97, 101, 131];

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task PagedFromContinuations_ReturnsEveryDocumentInCosmosOrder_RepeatingOnlyTiesAtASplit(int seed)
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
        (List<string> paged, int? split) = await ReadPagedAsync(container, sql, pageSize, random);

        string context = $"seed {seed}: {count} documents, {sql}, pages of {pageSize}{(split is null ? string.Empty : $", a split after {split} rows")}";
        Assert.True(paged.Distinct().Count() == count, $"{context}: {paged.Distinct().Count()} distinct rows, expected {count}.");
        List<string> repeated = RepeatsNotPromised(paged, split, documents);
        Assert.True(repeated.Count == 0, $"{context}: {string.Join(", ", repeated)} came back twice, not as a tie at the split.");
        List<int> ranks = paged.Select(id => Rank(documents[id]["v"])).ToList();
        Assert.True(ranks.SequenceEqual(descending ? ranks.OrderDescending() : ranks.Order()), $"{context}: not in Cosmos DB's order.");
        Assert.Equal(count, unpaged.Count);
        if (split is null)
        {
            Assert.Equal(unpaged, paged);
        }
    }

    /// <summary>
    /// The repeat the generated test allows, made to happen: the rows tie, the range the first page came from splits
    /// after it, the row it returned (the highest rid) lies in the right child and lower rids in the left one. The
    /// next page names the left child, so the right child is asked for the tie without a rid and returns that row
    /// again, last, as Cosmos DB would answer the same requests. Which keys fall into which child is learnt by
    /// splitting a twin container first (same throughput, same ranges, split at the same middle).
    /// </summary>
    [Fact]
    public async Task ASplitInsideATieGroup_RepeatsOnlyTheTieTheRightChildReturnedBefore()
    {
        (List<string> leftKeys, List<string> rightKeys)? children = await ChildrenOfTheFirstSplitAsync();
        if (children is not ({ Count: > 0 } left, { Count: > 0 } right))
        {
            return; // another endpoint cannot be told to split (PartitionSplits)
        }

        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        var expectedAfterFirst = new List<string>();
        foreach (string key in left)
        {
            await container.CreateItemAsync(new JObject { ["id"] = $"left-{key}", ["pk"] = key, ["v"] = "tie" }, new PartitionKey(key), cancellationToken: Ct);
            expectedAfterFirst.Insert(0, $"left-{key}"); // DESC: ties by rid, highest first
        }

        string last = $"right-{right[0]}";
        await container.CreateItemAsync(new JObject { ["id"] = last, ["pk"] = right[0], ["v"] = "tie" }, new PartitionKey(right[0]), cancellationToken: Ct);

        const string Sql = "SELECT * FROM c ORDER BY c.v DESC";
        var ids = new List<string>();
        string? continuation = null;
        do
        {
            using FeedIterator<JObject> iterator = container.GetItemQueryIterator<JObject>(Sql, continuation, new QueryRequestOptions { MaxItemCount = 1 });
            FeedResponse<JObject> page = await iterator.ReadNextAsync(Ct);
            ids.AddRange(Ids(page));
            continuation = page.ContinuationToken;
            if (ids.Count == 1)
            {
                Assert.True(await PartitionSplits.SplitAsync(fixture.Endpoint, container, cancellationToken: Ct));
            }
        }
        while (continuation is not null);

        Assert.Equal([last, .. expectedAfterFirst, last], ids);
        Dictionary<string, JObject> documents = ids.Distinct().ToDictionary(id => id, _ => new JObject { ["v"] = "tie" });
        Assert.Empty(RepeatsNotPromised(ids, 1, documents));
    }

    // The partition keys (of p0..p29) in the left and the right child of the range the endpoint splits first.
    private async Task<(List<string>, List<string>)?> ChildrenOfTheFirstSplitAsync()
    {
        Container twin = await fixture.CreateContainerAsync(cancellationToken: Ct);
        for (int i = 0; i < 30; i++)
        {
            await twin.CreateItemAsync(new JObject { ["id"] = $"k{i}", ["pk"] = $"p{i}" }, new PartitionKey($"p{i}"), cancellationToken: Ct);
        }

        HashSet<string> before = (await twin.GetFeedRangesAsync(Ct)).Select(r => r.ToJsonString()).ToHashSet();
        if (!await PartitionSplits.SplitAsync(fixture.Endpoint, twin, cancellationToken: Ct))
        {
            return null;
        }

        List<FeedRange> created = (await twin.GetFeedRangesAsync(Ct)).Where(r => !before.Contains(r.ToJsonString()))
            .OrderBy(r => (string)JObject.Parse(r.ToJsonString())["Range"]!["min"]!, StringComparer.Ordinal).ToList();
        Assert.Equal(2, created.Count);
        var keys = new List<List<string>>();
        foreach (FeedRange child in created)
        {
            using FeedIterator<string> iterator = twin.GetItemQueryIterator<string>(child, new QueryDefinition("SELECT VALUE c.pk FROM c"));
            keys.Add([.. await iterator.ReadAllAsync(Ct)]);
        }

        return (keys[0], keys[1]);
    }

    // The repeats a split may cause (see the summary): only a row that came back before the split, tied with the
    // last row before it, at most once more, and after the split. Returns the ids repeated otherwise.
    private static List<string> RepeatsNotPromised(List<string> paged, int? split, Dictionary<string, JObject> documents)
    {
        var seen = new HashSet<string>();
        var repeated = new List<string>();
        for (int i = 0; i < paged.Count; i++)
        {
            string id = paged[i];
            if (seen.Add(id))
            {
                continue;
            }

            bool promised = split is int at && at > 0 && i >= at && paged.IndexOf(id) < at
                && Rank(documents[id]["v"]) == Rank(documents[paged[at - 1]]["v"]) && paged.Count(x => x == id) == 2;
            if (!promised)
            {
                repeated.Add(id);
            }
        }

        return repeated;
    }

    // Reads the query a page per iterator; Split is how many rows had come back when a range split, if one did.
    private async Task<(List<string> Ids, int? Split)> ReadPagedAsync(Container container, string sql, int pageSize, Random random)
    {
        var ids = new List<string>();
        int? split = null;
        string? continuation = null;
        do
        {
            using FeedIterator<JObject> iterator = container.GetItemQueryIterator<JObject>(sql, continuation, new QueryRequestOptions { MaxItemCount = pageSize });
            FeedResponse<JObject> page = await iterator.ReadNextAsync(Ct);
            ids.AddRange(Ids(page));
            continuation = page.ContinuationToken;
            if (continuation is not null && split is null && random.Next(4) == 0
                && await PartitionSplits.SplitAsync(fixture.Endpoint, container, cancellationToken: Ct))
            {
                split = ids.Count;
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
