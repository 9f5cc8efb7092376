using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// ORDER BY as Cosmos DB evaluates it: every document is returned, those whose sort property is undefined
/// included, in the type order undefined &lt; null &lt; false &lt; true &lt; numbers &lt; strings (reversed for
/// DESC), and TOP takes the first documents of that order, whatever the page size.
/// </summary>
public sealed class OrderByConformanceTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static readonly string[] s_ascending = ["undefined", "null", "false", "true", "one", "three", "text"];

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private async Task<Container> SeedAsync()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        JObject[] documents =
        [
            new JObject { ["id"] = "three", ["pk"] = "p0", ["v"] = 3 },
            new JObject { ["id"] = "text", ["pk"] = "p1", ["v"] = "x" },
            new JObject { ["id"] = "undefined", ["pk"] = "p0" },
            new JObject { ["id"] = "null", ["pk"] = "p1", ["v"] = null },
            new JObject { ["id"] = "true", ["pk"] = "p0", ["v"] = true },
            new JObject { ["id"] = "one", ["pk"] = "p1", ["v"] = 1 },
            new JObject { ["id"] = "false", ["pk"] = "p0", ["v"] = false },
        ];
        foreach (JObject document in documents)
        {
            await container.CreateItemAsync(document, new PartitionKey((string)document["pk"]!), cancellationToken: Ct);
        }

        return container;
    }

    private static async Task<List<string>> IdsAsync(Container container, string sql, int pageSize) =>
        (await container.GetItemQueryIterator<JObject>(sql, requestOptions: new QueryRequestOptions { MaxItemCount = pageSize }).ReadAllAsync(Ct))
            .Select(d => (string)d["id"]!).ToList();

    [Theory]
    [InlineData(-1)]
    [InlineData(2)]
    public async Task OrderBy_MixedAndUndefinedValues_ReturnsEveryDocumentInTypeOrder(int pageSize)
    {
        Container container = await SeedAsync();

        List<string> ascending = await IdsAsync(container, "SELECT c.id FROM c ORDER BY c.v", pageSize);
        List<string> descending = await IdsAsync(container, "SELECT c.id FROM c ORDER BY c.v DESC", pageSize);

        Assert.Equal(s_ascending, ascending);
        Assert.Equal(s_ascending.Reverse(), descending);
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(2)]
    public async Task TopWithOrderBy_TakesTheFirstDocumentsOfTheOrder(int pageSize)
    {
        Container container = await SeedAsync();

        List<string> first = await IdsAsync(container, "SELECT TOP 3 c.id FROM c ORDER BY c.v", pageSize);
        List<string> last = await IdsAsync(container, "SELECT TOP 3 c.id FROM c ORDER BY c.v DESC", pageSize);

        Assert.Equal(s_ascending.Take(3), first);
        Assert.Equal(s_ascending.Reverse().Take(3), last);
    }
}
