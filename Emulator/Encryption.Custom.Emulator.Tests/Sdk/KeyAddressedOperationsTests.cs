using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Sdk.KeyAddressing;

namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// Every operation that addresses items by id and partition key, through the plain SDK, on a hash key and on
/// hierarchical keys of two and three levels, with ids and key values shaped like the base64 that issue #34's
/// encryption writes and with characters next to what Cosmos DB reserves: what Cosmos DB serves, the bundled
/// endpoint serves the same way (Emulator/README.md).
/// </summary>
public sealed class KeyAddressedOperationsTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public static TheoryData<KeyShape> Shapes => [KeyShape.Hash, KeyShape.TwoLevels, KeyShape.ThreeLevels];

    private Task<Container> NewContainerAsync(KeyShape shape) => CreateContainerAsync(fixture.Database, shape, Ct);

    [Theory]
    [MemberData(nameof(Shapes))]
    public async Task PointOperations_TypedAndStream_AddressEachItemByItsIdAndFullKey(KeyShape shape)
    {
        Container container = await NewContainerAsync(shape);
        foreach (string value in AwkwardValues)
        {
            string[] key = Values(shape, value, value);
            PartitionKey pk = Key(shape, key);
            foreach (string id in AwkwardIds)
            {
                ItemResponse<JObject> created = await container.CreateItemAsync(Item(shape, id, key, 1), pk, cancellationToken: Ct);
                Assert.Equal(HttpStatusCode.Created, created.StatusCode);

                ItemResponse<JObject> read = await container.ReadItemAsync<JObject>(id, pk, cancellationToken: Ct);
                Assert.Equal(id, (string?)read.Resource["id"]);
                Assert.Equal(1, (int)read.Resource["n"]!);

                ItemResponse<JObject> replaced = await container.ReplaceItemAsync(Item(shape, id, key, 2), id, pk, cancellationToken: Ct);
                Assert.Equal(2, (int)replaced.Resource["n"]!);
                ItemResponse<JObject> upserted = await container.UpsertItemAsync(Item(shape, id, key, 3), pk, cancellationToken: Ct);
                Assert.Equal(HttpStatusCode.OK, upserted.StatusCode);
                ItemResponse<JObject> patched = await container.PatchItemAsync<JObject>(id, pk, [PatchOperation.Increment("/n", 1)], cancellationToken: Ct);
                Assert.Equal(4, (int)patched.Resource["n"]!);

                using (ResponseMessage streamRead = await container.ReadItemStreamAsync(id, pk, cancellationToken: Ct))
                {
                    Assert.Equal(HttpStatusCode.OK, streamRead.StatusCode);
                    Assert.Equal(4, (int)Body(streamRead)["n"]!);
                }

                using (ResponseMessage streamReplace = await container.ReplaceItemStreamAsync(Stream(Item(shape, id, key, 5)), id, pk, cancellationToken: Ct))
                {
                    Assert.Equal(HttpStatusCode.OK, streamReplace.StatusCode);
                }

                using (ResponseMessage streamPatch = await container.PatchItemStreamAsync(id, pk, [PatchOperation.Set("/n", 6)], cancellationToken: Ct))
                {
                    Assert.Equal(HttpStatusCode.OK, streamPatch.StatusCode);
                }

                using (ResponseMessage streamDelete = await container.DeleteItemStreamAsync(id, pk, cancellationToken: Ct))
                {
                    Assert.Equal(HttpStatusCode.NoContent, streamDelete.StatusCode);
                }

                using (ResponseMessage streamUpsert = await container.UpsertItemStreamAsync(Stream(Item(shape, id, key, 7)), pk, cancellationToken: Ct))
                {
                    Assert.Equal(HttpStatusCode.Created, streamUpsert.StatusCode);
                }

                using (ResponseMessage gone = await container.ReadItemStreamAsync(id, Key(shape, Values(shape, value + "x", value)), cancellationToken: Ct))
                {
                    Assert.Equal(HttpStatusCode.NotFound, gone.StatusCode);
                }

                ItemResponse<JObject> deleted = await container.DeleteItemAsync<JObject>(id, pk, cancellationToken: Ct);
                Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
                using ResponseMessage afterDelete = await container.ReadItemStreamAsync(id, pk, cancellationToken: Ct);
                Assert.Equal(HttpStatusCode.NotFound, afterDelete.StatusCode);
            }
        }
    }

    [Theory]
    [MemberData(nameof(Shapes))]
    public async Task SameId_InPartitionsThatShareOnlyTheirFirstLevels_AreDifferentItems(KeyShape shape)
    {
        // Cosmos DB keys an item by its id and its whole partition key: "1" and 1, "" and a missing value, and
        // (hierarchical) keys that differ at a lower level only are different partitions.
        Container container = await NewContainerAsync(shape);
        string[][] keys = shape == KeyShape.Hash
            ? [["t"], ["t "], ["T"], [""]]
            : [Values(shape, "t", "u1"), Values(shape, "t", "u2"), Values(shape, "t2", "u1"), Values(shape, "", "u1")];
        for (int i = 0; i < keys.Length; i++)
        {
            ItemResponse<JObject> created = await container.CreateItemAsync(Item(shape, "same", keys[i], i), Key(shape, keys[i]), cancellationToken: Ct);
            Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        }

        for (int i = 0; i < keys.Length; i++)
        {
            ItemResponse<JObject> read = await container.ReadItemAsync<JObject>("same", Key(shape, keys[i]), cancellationToken: Ct);
            Assert.Equal(i, (int)read.Resource["n"]!);
        }

        await container.DeleteItemAsync<JObject>("same", Key(shape, keys[0]), cancellationToken: Ct);
        List<JObject> left = await container.GetItemQueryIterator<JObject>("SELECT * FROM c").ReadAllAsync(Ct);
        Assert.Equal([1, 2, 3], left.Select(item => (int)item["n"]!).Order());
    }

    [Theory]
    [MemberData(nameof(Shapes))]
    public async Task ReadMany_TypedAndStream_FindsItemsAcrossPartitionsAndRanges(KeyShape shape)
    {
        Container container = await NewContainerAsync(shape);
        var wanted = new List<(string Id, PartitionKey Key)>();
        for (int i = 0; i < 24; i++)
        {
            string[] key = Values(shape, AwkwardValues[i % AwkwardValues.Length] + i, "u" + (i % 3));
            string id = AwkwardIds[i % AwkwardIds.Length];
            await container.CreateItemAsync(Item(shape, id, key, i), Key(shape, key), cancellationToken: Ct);
            if (i % 2 == 0)
            {
                wanted.Add((id, Key(shape, key)));
            }
        }

        wanted.Add(("missing", Key(shape, Values(shape, "nobody"))));

        FeedResponse<JObject> many = await container.ReadManyItemsAsync<JObject>(wanted, cancellationToken: Ct);
        Assert.Equal(Enumerable.Range(0, 12).Select(i => i * 2), many.Select(item => (int)item["n"]!).Order());

        using ResponseMessage stream = await container.ReadManyItemsStreamAsync(wanted, cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.OK, stream.StatusCode);
        JArray documents = (JArray)Body(stream)["Documents"]!;
        Assert.Equal(12, documents.Count);
    }

    [Theory]
    [MemberData(nameof(Shapes))]
    public async Task TransactionalBatch_OnOneFullKey_RunsEveryOperation(KeyShape shape)
    {
        Container container = await NewContainerAsync(shape);
        string[] key = Values(shape, "AgE+x/9=", "AgE-x_9");
        PartitionKey pk = Key(shape, key);
        await container.CreateItemAsync(Item(shape, "AgE-x_9", key, 1), pk, cancellationToken: Ct);

        using TransactionalBatchResponse batch = await container.CreateTransactionalBatch(pk)
            .CreateItem(Item(shape, "AgE+x9==", key, 10))
            .ReadItem("AgE-x_9")
            .ReplaceItem("AgE-x_9", Item(shape, "AgE-x_9", key, 2))
            .UpsertItem(Item(shape, "日本語-ü-😀", key, 3))
            .PatchItem("AgE+x9==", [PatchOperation.Increment("/n", 1)])
            .DeleteItem("日本語-ü-😀")
            .ExecuteAsync(Ct);

        Assert.True(batch.IsSuccessStatusCode, $"{batch.StatusCode}: {batch.ErrorMessage}");
        Assert.Equal(6, batch.Count);
        ItemResponse<JObject> patched = await container.ReadItemAsync<JObject>("AgE+x9==", pk, cancellationToken: Ct);
        Assert.Equal(11, (int)patched.Resource["n"]!);
        using ResponseMessage deleted = await container.ReadItemStreamAsync("日本語-ü-😀", pk, cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, deleted.StatusCode);
    }

    [Theory]
    [MemberData(nameof(Shapes))]
    public async Task Bulk_WritesReadsAndDeletes_ItemsOfManyPartitions(KeyShape shape)
    {
        Container created = await NewContainerAsync(shape);
        using CosmosClient bulkClient = fixture.Endpoint.CreateClient(o => o.AllowBulkExecution = true);
        Container container = bulkClient.GetContainer(created.Database.Id, created.Id);
        var items = Enumerable.Range(0, 40)
            .Select(i => (Id: AwkwardIds[i % AwkwardIds.Length], Key: Values(shape, AwkwardValues[i % AwkwardValues.Length] + "/" + i, "u" + (i % 4)), N: i))
            .ToList();

        ItemResponse<JObject>[] writes = await Task.WhenAll(items.Select(i => container.CreateItemAsync(Item(shape, i.Id, i.Key, i.N), Key(shape, i.Key), cancellationToken: Ct)));
        Assert.All(writes, w => Assert.Equal(HttpStatusCode.Created, w.StatusCode));
        ItemResponse<JObject>[] reads = await Task.WhenAll(items.Select(i => container.ReadItemAsync<JObject>(i.Id, Key(shape, i.Key), cancellationToken: Ct)));
        Assert.Equal(items.Select(i => i.N), reads.Select(r => (int)r.Resource["n"]!));
        ItemResponse<JObject>[] deletes = await Task.WhenAll(items.Select(i => container.DeleteItemAsync<JObject>(i.Id, Key(shape, i.Key), cancellationToken: Ct)));
        Assert.All(deletes, d => Assert.Equal(HttpStatusCode.NoContent, d.StatusCode));
        Assert.Empty(await created.GetItemQueryIterator<JObject>("SELECT * FROM c").ReadAllAsync(Ct));
    }

    [Theory]
    [MemberData(nameof(Shapes))]
    public async Task QueryScopedByPartitionKey_ReturnsThatPartition_AndAPrefixReturnsEveryPartitionUnderIt(KeyShape shape)
    {
        Container container = await NewContainerAsync(shape);
        var all = new List<JObject>();
        for (int i = 0; i < 30; i++)
        {
            string[] key = Values(shape, "AgE+x/9=" + (i % 3), "AgE-x_9" + (i % 2));
            JObject item = Item(shape, "i" + i, key, i);
            await container.CreateItemAsync(item, Key(shape, key), cancellationToken: Ct);
            all.Add(item);
        }

        string[] full = Values(shape, "AgE+x/9=1", "AgE-x_91");
        List<JObject> inFull = await container.GetItemQueryIterator<JObject>(
            "SELECT * FROM c", requestOptions: new QueryRequestOptions { PartitionKey = Key(shape, full), MaxItemCount = 2 }).ReadAllAsync(Ct);
        Assert.Equal(all.Where(i => Matches(shape, i, full)).Select(i => (int)i["n"]!).Order(), inFull.Select(i => (int)i["n"]!).Order());
        Assert.NotEmpty(inFull);

        if (shape == KeyShape.Hash)
        {
            return;
        }

        foreach (string[] prefix in shape == KeyShape.TwoLevels ? new[] { full[..1] } : [full[..1], full[..2]])
        {
            List<JObject> underPrefix = await container.GetItemQueryIterator<JObject>(
                "SELECT * FROM c WHERE c.n >= 0", requestOptions: new QueryRequestOptions { PartitionKey = Key(shape, prefix), MaxItemCount = 3 }).ReadAllAsync(Ct);
            Assert.Equal(all.Where(i => Matches(shape, i, prefix)).Select(i => (int)i["n"]!).Order(), underPrefix.Select(i => (int)i["n"]!).Order());
        }
    }

    // Another logical partition: for a hierarchical key one that shares the first level.
    private static string[] Sibling(KeyShape shape) => shape == KeyShape.Hash ? ["AgE+x/9=="] : Values(shape, "AgE+x/9=", "AgE-x_8");

    [Theory]
    [InlineData("a?b")]
    [InlineData("a#b")]
    [InlineData("a\\b")]
    [InlineData("a%20b")]
    [InlineData("trailing ")]
    public async Task IdsTheUrlDoesNotCarryBack_AreUnauthorizedInPointOperations_AsCosmosDbsGatewayAnswers(string id)
    {
        // Cosmos DB's gateway rebuilds the signed payload from the URL it received: '?' starts the query, '#' the
        // fragment (never sent), '\' becomes '/', "%20" is decoded, a trailing space is trimmed; the SDK signed the
        // id as given, so the signatures differ: 401 (azure-cosmos-dotnet-v3 issues 1734, 3507; v2 458, 547).
        Container container = await NewContainerAsync(KeyShape.Hash);
        PartitionKey pk = new("p");
        JObject item = Item(KeyShape.Hash, id, ["p"]);

        using ResponseMessage read = await container.ReadItemStreamAsync(id, pk, cancellationToken: Ct);
        using ResponseMessage replace = await container.ReplaceItemStreamAsync(Stream(item), id, pk, cancellationToken: Ct);
        using ResponseMessage patch = await container.PatchItemStreamAsync(id, pk, [PatchOperation.Set("/n", 1)], cancellationToken: Ct);
        using ResponseMessage delete = await container.DeleteItemStreamAsync(id, pk, cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.Unauthorized, read.StatusCode);
        Assert.Contains("The input authorization token can't serve the request", read.ErrorMessage);
        Assert.Equal(HttpStatusCode.Unauthorized, replace.StatusCode);
        Assert.Equal(HttpStatusCode.Unauthorized, patch.StatusCode);
        Assert.Equal(HttpStatusCode.Unauthorized, delete.StatusCode);
    }

    [Fact]
    public async Task AnIdWithPercentHex_IsStoredAndFoundByQueryAndReadMany_ButNotByAPointRead()
    {
        // Cosmos DB accepts the id in a body; only the URL of a point operation cannot carry it (above).
        Container container = await NewContainerAsync(KeyShape.Hash);
        PartitionKey pk = new("p");
        await container.CreateItemAsync(Item(KeyShape.Hash, "a%20b", ["p"], 1), pk, cancellationToken: Ct);

        await container.CreateItemAsync(Item(KeyShape.Hash, "b", ["p"], 2), pk, cancellationToken: Ct);

        // Two items: the SDK reads them with a query (one item would be a point read).
        FeedResponse<JObject> many = await container.ReadManyItemsAsync<JObject>([("a%20b", pk), ("b", pk)], cancellationToken: Ct);
        using ResponseMessage read = await container.ReadItemStreamAsync("a%20b", pk, cancellationToken: Ct);

        Assert.Equal(["a%20b", "b"], many.Select(i => (string)i["id"]!).Order());
        Assert.Equal(HttpStatusCode.Unauthorized, read.StatusCode);
    }

    [Fact]
    public async Task AnIdWithASlash_NeverLeavesTheSdk_ItAnswers404ItselfForPointOperations()
    {
        // Standard base64 has '/': such an id cannot be addressed (the SDK cannot resolve the link), nor created
        // (ItemLimitTests). Issue #34 needs base64url ids.
        Container container = await NewContainerAsync(KeyShape.Hash);

        using ResponseMessage read = await container.ReadItemStreamAsync("AgE+x/9=", new PartitionKey("p"), cancellationToken: Ct);
        using ResponseMessage delete = await container.DeleteItemStreamAsync("AgE+x/9=", new PartitionKey("p"), cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.NotFound, read.StatusCode);
        Assert.Contains("$resolveFor", read.ErrorMessage);
        Assert.Equal(HttpStatusCode.NotFound, delete.StatusCode);
    }

    private static bool Matches(KeyShape shape, JObject item, string[] values) =>
        Paths(shape).Take(values.Length).Select((path, index) => (string?)item[path[1..]] == values[index]).All(match => match);

    [Theory]
    [MemberData(nameof(Shapes))]
    public async Task ChangeFeedFromAPartitionKey_ReturnsThatPartitionsChanges_BeforeAndAfterASplit(KeyShape shape)
    {
        Container container = await NewContainerAsync(shape);
        string[] key = Values(shape, "AgE+x/9=", "AgE-x_9");
        string[] sibling = Sibling(shape);
        for (int i = 0; i < 6; i++)
        {
            await container.CreateItemAsync(Item(shape, "k" + i, key, i), Key(shape, key), cancellationToken: Ct);
            await container.CreateItemAsync(Item(shape, "s" + i, sibling, 100 + i), Key(shape, sibling), cancellationToken: Ct);
        }

        FeedIterator<JObject> feed = container.GetChangeFeedIterator<JObject>(
            ChangeFeedStartFrom.Beginning(FeedRange.FromPartitionKey(Key(shape, key))), ChangeFeedMode.LatestVersion, new ChangeFeedRequestOptions { PageSizeHint = 4 });
        (IReadOnlyList<FeedResponse<JObject>> pages, string continuation) = await feed.ReadChangesAsync(Ct);
        Assert.Equal(Enumerable.Range(0, 6), pages.SelectMany(p => p).Select(i => (int)i["n"]!));

        // A split of every range (the key's range among them): the continuation carries on from the children.
        foreach (FeedRange _ in await container.GetFeedRangesAsync(Ct))
        {
            await PartitionSplits.SplitAsync(fixture.Endpoint, container, cancellationToken: Ct);
        }

        await container.CreateItemAsync(Item(shape, "k6", key, 6), Key(shape, key), cancellationToken: Ct);
        await container.CreateItemAsync(Item(shape, "s6", sibling, 106), Key(shape, sibling), cancellationToken: Ct);
        FeedIterator<JObject> resumed = container.GetChangeFeedIterator<JObject>(ChangeFeedStartFrom.ContinuationToken(continuation), ChangeFeedMode.LatestVersion);
        (IReadOnlyList<FeedResponse<JObject>> after, _) = await resumed.ReadChangesAsync(Ct);
        Assert.Equal([6], after.SelectMany(p => p).Select(i => (int)i["n"]!));

        FeedIterator<JObject> again = container.GetChangeFeedIterator<JObject>(
            ChangeFeedStartFrom.Beginning(FeedRange.FromPartitionKey(Key(shape, key))), ChangeFeedMode.LatestVersion);
        (IReadOnlyList<FeedResponse<JObject>> fromStart, _) = await again.ReadChangesAsync(Ct);
        Assert.Equal(Enumerable.Range(0, 7), fromStart.SelectMany(p => p).Select(i => (int)i["n"]!));
    }

    [Theory]
    [MemberData(nameof(Shapes))]
    public async Task DeleteAllItemsByPartitionKey_DeletesThatLogicalPartitionOnly(KeyShape shape)
    {
        Container container = await NewContainerAsync(shape);
        string[] key = Values(shape, "AgE+x/9=", "AgE-x_9");
        string[] sibling = Sibling(shape);
        for (int i = 0; i < 5; i++)
        {
            await container.CreateItemAsync(Item(shape, "i" + i, key, i), Key(shape, key), cancellationToken: Ct);
            await container.CreateItemAsync(Item(shape, "i" + i, sibling, 100 + i), Key(shape, sibling), cancellationToken: Ct);
        }

        using ResponseMessage deleted = await container.DeleteAllItemsByPartitionKeyStreamAsync(Key(shape, key), cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.OK, deleted.StatusCode);
        List<JObject> left = await container.GetItemQueryIterator<JObject>("SELECT * FROM c").ReadAllAsync(Ct);
        Assert.Equal(Enumerable.Range(100, 5), left.Select(i => (int)i["n"]!).Order());
        using ResponseMessage read = await container.ReadItemStreamAsync("i0", Key(shape, key), cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, read.StatusCode);
    }

    [Theory]
    [InlineData(KeyShape.TwoLevels)]
    [InlineData(KeyShape.ThreeLevels)]
    public async Task APrefixOfAHierarchicalKey_IsRefusedWherever_OneLogicalPartitionIsMeant(KeyShape shape)
    {
        // Cosmos DB deletes by partition key one logical partition (it has no delete by prefix) and addresses an
        // item by its full key: a prefix is 400 and nothing changes.
        Container container = await NewContainerAsync(shape);
        string[] key = Values(shape, "AgE+x/9=", "AgE-x_9");
        await container.CreateItemAsync(Item(shape, "i", key, 1), Key(shape, key), cancellationToken: Ct);
        PartitionKey prefix = Key(shape, key[..1]);

        using ResponseMessage deleteAll = await container.DeleteAllItemsByPartitionKeyStreamAsync(prefix, cancellationToken: Ct);
        using ResponseMessage read = await container.ReadItemStreamAsync("i", prefix, cancellationToken: Ct);
        using ResponseMessage delete = await container.DeleteItemStreamAsync("i", prefix, cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.BadRequest, deleteAll.StatusCode);
        Assert.Contains("Partition key provided either doesn't correspond to definition in the collection", deleteAll.ErrorMessage);
        Assert.Equal(HttpStatusCode.BadRequest, read.StatusCode);
        Assert.Equal(HttpStatusCode.BadRequest, delete.StatusCode);
        ItemResponse<JObject> still = await container.ReadItemAsync<JObject>("i", Key(shape, key), cancellationToken: Ct);
        Assert.Equal(1, (int)still.Resource["n"]!);
    }

    [Fact]
    public async Task LongestValues_A2048BytePartitionKeyAndA255CharacterId_AreServedEverywhere()
    {
        Container container = await NewContainerAsync(KeyShape.Hash);
        string value = "AgE+x/9=" + new string('k', 2048 - 8);
        string id = new('i', 255);
        PartitionKey pk = new(value);

        await container.CreateItemAsync(Item(KeyShape.Hash, id, [value], 1), pk, cancellationToken: Ct);
        ItemResponse<JObject> read = await container.ReadItemAsync<JObject>(id, pk, cancellationToken: Ct);
        FeedResponse<JObject> many = await container.ReadManyItemsAsync<JObject>([(id, pk)], cancellationToken: Ct);
        List<JObject> query = await container.GetItemQueryIterator<JObject>(
            "SELECT * FROM c", requestOptions: new QueryRequestOptions { PartitionKey = pk }).ReadAllAsync(Ct);
        using TransactionalBatchResponse batch = await container.CreateTransactionalBatch(pk).PatchItem(id, [PatchOperation.Set("/n", 2)]).ExecuteAsync(Ct);
        using ResponseMessage deleteAll = await container.DeleteAllItemsByPartitionKeyStreamAsync(pk, cancellationToken: Ct);

        Assert.Equal(1, (int)read.Resource["n"]!);
        Assert.Single(many);
        Assert.Single(query);
        Assert.True(batch.IsSuccessStatusCode);
        Assert.Equal(HttpStatusCode.OK, deleteAll.StatusCode);
        Assert.Empty(await container.GetItemQueryIterator<JObject>("SELECT * FROM c").ReadAllAsync(Ct));
    }
}
