using System.Globalization;
using System.Text;
using Encryption.Custom.Emulator.Tests.Encryption;
using FsCheck;
using FsCheck.Fluent;
using Microsoft.Azure.Cosmos.Linq;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Policy;

/// <summary>
/// A policy that encrypts the document id and the partition key (docs/container.md "Encrypted ids and partition
/// keys"): through a real CosmosClient, every key-addressed operation takes the application's plaintext id and key,
/// the service stores only their ciphertext, and every answer gives the plaintext back. Both processors.
/// </summary>
public sealed class EncryptedKeyTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    public static TheoryData<JsonProcessor> Processors => [JsonProcessor.Stream, JsonProcessor.Newtonsoft];

    // Each processor with the id and the key encrypted, the id alone, the key alone.
    public static TheoryData<JsonProcessor, bool, bool> Encrypting => new()
    {
        { JsonProcessor.Stream, true, true }, { JsonProcessor.Stream, true, false }, { JsonProcessor.Stream, false, true },
        { JsonProcessor.Newtonsoft, true, true }, { JsonProcessor.Newtonsoft, true, false }, { JsonProcessor.Newtonsoft, false, true },
    };

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static EncryptionContainerOptions Options(JsonProcessor processor, bool id = true, bool key = true) => new()
    {
        JsonProcessor = processor,
        Policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, [
            .. id ? [new EncryptionPolicyIncludedPath("/id") { EncryptionType = PathEncryptionType.Deterministic }] : Array.Empty<EncryptionPolicyIncludedPath>(),
            .. key ? [new EncryptionPolicyIncludedPath("/email") { EncryptionType = PathEncryptionType.Deterministic }] : Array.Empty<EncryptionPolicyIncludedPath>(),
            new EncryptionPolicyIncludedPath("/ssn"),
        ]),
    };

    public sealed record Customer
    {
        [JsonProperty("id")]
        public required string Id { get; init; }

        [JsonProperty("email")]
        public required string Email { get; init; }

        [JsonProperty("ssn")]
        public string Ssn { get; init; } = "078-05-1120";

        [JsonProperty("name")]
        public string Name { get; init; } = "Ada";
    }

    private static Customer NewCustomer(string? id = null, string? email = null) =>
        new() { Id = id ?? "cust-" + Guid.NewGuid().ToString("N")[..8] + "@example.com", Email = email ?? "ada-" + Guid.NewGuid().ToString("N")[..6] + "@example.com" };

    private static async Task<List<JObject>> RawRowsAsync(Container raw)
    {
        var rows = new List<JObject>();
        using FeedIterator<JObject> iterator = raw.GetItemQueryIterator<JObject>("SELECT * FROM c");
        while (iterator.HasMoreResults)
        {
            rows.AddRange(await iterator.ReadNextAsync(Ct));
        }

        return rows;
    }

    private static async Task<List<T>> AllAsync<T>(FeedIterator<T> iterator)
    {
        var rows = new List<T>();
        using (iterator)
        {
            while (iterator.HasMoreResults)
            {
                rows.AddRange(await iterator.ReadNextAsync(Ct));
            }
        }

        return rows;
    }

    // The stored id is a valid Cosmos DB id holding none of the plaintext; the stored key likewise.
    private static void AssertStoredAsCipherText(JObject stored, Customer customer, bool id = true, bool key = true)
    {
        string storedId = (string)stored["id"]!;
        string storedEmail = (string)stored["email"]!;
        Assert.Equal(id, storedId != customer.Id);
        Assert.Equal(key, storedEmail != customer.Email);
        if (id)
        {
            Assert.True(storedId.Length <= 255, storedId);
            Assert.True(storedId.IndexOfAny(['/', '\\', '?', '#', '+', '=']) < 0, storedId);
            Assert.DoesNotContain("example", storedId, StringComparison.Ordinal);
        }

        Assert.DoesNotContain(customer.Ssn, stored.ToString(Formatting.None), StringComparison.Ordinal);
        if (key)
        {
            Assert.DoesNotContain(customer.Email, stored.ToString(Formatting.None), StringComparison.Ordinal);
        }
    }

    [Theory]
    [MemberData(nameof(Encrypting))]
    public async Task EveryPointOperation_TakesThePlaintextIdAndKey_AndTheServiceStoresCipherText(JsonProcessor processor, bool id, bool key)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync("/email", Options(processor, id, key), Ct);
        Customer typed = NewCustomer();
        Customer stream = NewCustomer();
        Customer upserted = NewCustomer(email: typed.Email);

        ItemResponse<Customer> created = await container.CreateItemAsync(typed, new PartitionKey(typed.Email), cancellationToken: Ct);
        Assert.Equal(typed, created.Resource);
        AssertStoredAsCipherText(Assert.Single(await RawRowsAsync(raw)), typed, id, key);

        Assert.Equal(typed, (await container.ReadItemAsync<Customer>(typed.Id, new PartitionKey(typed.Email), cancellationToken: Ct)).Resource);
        await container.ReplaceItemAsync(typed with { Name = "Grace" }, typed.Id, new PartitionKey(typed.Email), cancellationToken: Ct);
        Assert.Equal("Grace", (await container.ReadItemAsync<Customer>(typed.Id, new PartitionKey(typed.Email), cancellationToken: Ct)).Resource.Name);
        await container.UpsertItemAsync(upserted, new PartitionKey(upserted.Email), cancellationToken: Ct);
        await container.UpsertItemAsync(upserted with { Name = "Upserted twice" }, new PartitionKey(upserted.Email), cancellationToken: Ct);
        Assert.Equal("Upserted twice", (await container.ReadItemAsync<Customer>(upserted.Id, new PartitionKey(upserted.Email), cancellationToken: Ct)).Resource.Name);

        using (ResponseMessage response = await container.CreateItemStreamAsync(PointOperationTests.ToStream(JsonConvert.SerializeObject(stream)), new PartitionKey(stream.Email), cancellationToken: Ct))
        {
            response.EnsureSuccessStatusCode();
            Assert.Equal(stream.Id, (string?)JObject.Parse(await new StreamReader(response.Content).ReadToEndAsync(Ct))["id"]);
        }

        using (ResponseMessage response = await container.ReplaceItemStreamAsync(PointOperationTests.ToStream(JsonConvert.SerializeObject(stream with { Name = "S2" })), stream.Id, new PartitionKey(stream.Email), cancellationToken: Ct))
        {
            response.EnsureSuccessStatusCode();
        }

        using (ResponseMessage response = await container.ReadItemStreamAsync(stream.Id, new PartitionKey(stream.Email), cancellationToken: Ct))
        {
            response.EnsureSuccessStatusCode();
            JObject read = JObject.Parse(await new StreamReader(response.Content).ReadToEndAsync(Ct));
            Assert.Equal(stream.Id, (string?)read["id"]);
            Assert.Equal(stream.Email, (string?)read["email"]);
            Assert.Equal("S2", (string?)read["name"]);
        }

        ItemResponse<Customer> patched = await container.PatchItemAsync<Customer>(typed.Id, new PartitionKey(typed.Email), [PatchOperation.Set("/name", "Patched"), PatchOperation.Set("/ssn", "999-99-9999")], cancellationToken: Ct);
        Assert.Equal(typed with { Name = "Patched", Ssn = "999-99-9999" }, patched.Resource);
        using (ResponseMessage response = await container.PatchItemStreamAsync(stream.Id, new PartitionKey(stream.Email), [PatchOperation.Set("/name", "Patched stream")], cancellationToken: Ct))
        {
            response.EnsureSuccessStatusCode();
        }

        Assert.Equal("Patched stream", (await container.ReadItemAsync<Customer>(stream.Id, new PartitionKey(stream.Email), cancellationToken: Ct)).Resource.Name);
        foreach (JObject stored in await RawRowsAsync(raw))
        {
            Assert.Equal(id, !new[] { typed.Id, stream.Id, upserted.Id }.Contains(stored["id"]!.ToString()));
        }

        await container.DeleteItemAsync<Customer>(typed.Id, new PartitionKey(typed.Email), cancellationToken: Ct);
        using (ResponseMessage response = await container.DeleteItemStreamAsync(stream.Id, new PartitionKey(stream.Email), cancellationToken: Ct))
        {
            response.EnsureSuccessStatusCode();
        }

        CosmosException missing = await Assert.ThrowsAsync<CosmosException>(() => container.ReadItemAsync<Customer>(typed.Id, new PartitionKey(typed.Email), cancellationToken: Ct));
        Assert.Equal(System.Net.HttpStatusCode.NotFound, missing.StatusCode);
        Assert.True(!id || !missing.ToString().Contains(typed.Id, StringComparison.Ordinal), "the 404 names the plaintext id");
        JObject left = Assert.Single(await RawRowsAsync(raw));
        AssertStoredAsCipherText(left, upserted with { Name = "Upserted twice" }, id, key);
    }

    [Theory]
    [MemberData(nameof(Encrypting))]
    public async Task ReadManyQueriesBatchAndChangeFeed_FindDocumentsByPlaintextIdAndKey(JsonProcessor processor, bool id, bool key)
    {
        (Container _, Container container) = await fixture.CreateContainerAsync("/email", Options(processor, id, key), Ct);
        Customer a = NewCustomer();
        Customer b = NewCustomer();
        Customer sameKey = NewCustomer(email: a.Email);
        foreach (Customer customer in new[] { a, b, sameKey })
        {
            await container.CreateItemAsync(customer, new PartitionKey(customer.Email), cancellationToken: Ct);
        }

        FeedResponse<Customer> many = await container.ReadManyItemsAsync<Customer>([(a.Id, new PartitionKey(a.Email)), (b.Id, new PartitionKey(b.Email))], cancellationToken: Ct);
        Assert.Equal(new[] { a, b }.OrderBy(c => c.Id), many.OrderBy(c => c.Id));

        Assert.Equal([a], await AllAsync(container.GetItemQueryIterator<Customer>(new QueryDefinition("SELECT * FROM c WHERE c.id = @id").WithParameter("@id", a.Id))));
        Assert.Equal([a], await AllAsync(container.GetItemQueryIterator<Customer>(new QueryDefinition($"SELECT * FROM c WHERE c.id = '{a.Id}'"))));
        Assert.Equal(new[] { a, sameKey }.OrderBy(c => c.Id), (await AllAsync(container.GetItemQueryIterator<Customer>(new QueryDefinition("SELECT * FROM c WHERE c.email = @e").WithParameter("@e", a.Email)))).OrderBy(c => c.Id));
        Assert.Equal(new[] { a, sameKey }.OrderBy(c => c.Id), (await AllAsync(container.GetItemQueryIterator<Customer>("SELECT * FROM c", requestOptions: new QueryRequestOptions { PartitionKey = new PartitionKey(a.Email) }))).OrderBy(c => c.Id));
        Assert.Equal([b], await AllAsync(container.GetItemQueryIterator<Customer>(new QueryDefinition("SELECT * FROM c WHERE c.id IN (@x, @y)").WithParameter("@x", b.Id).WithParameter("@y", "nobody@example.com"))));
        Assert.Equal([b], await AllAsync(container.ToEncryptionFeedIterator(container.GetItemLinqQueryable<Customer>().Where(c => c.Id == b.Id))));
        IQueryable<Customer> inPartition = container.GetItemLinqQueryable<Customer>(requestOptions: new QueryRequestOptions { PartitionKey = new PartitionKey(a.Email) });
        Assert.Equal(new[] { a, sameKey }.OrderBy(c => c.Id), (await AllAsync(container.ToEncryptionFeedIterator(inPartition))).OrderBy(c => c.Id));
        JObject projected = Assert.Single(await AllAsync(container.GetItemQueryIterator<JObject>(new QueryDefinition("SELECT c.id, c.email, c.name FROM c WHERE c.id = @id").WithParameter("@id", b.Id))));
        Assert.Equal(b.Id, (string?)projected["id"]);
        Assert.Equal(b.Email, (string?)projected["email"]);

        TransactionalBatchResponse batch = await container.CreateTransactionalBatch(new PartitionKey(a.Email))
            .ReadItem(a.Id)
            .ReplaceItem(sameKey.Id, sameKey with { Name = "In a batch" })
            .CreateItem(NewCustomer(email: a.Email))
            .ExecuteAsync(Ct);
        Assert.True(batch.IsSuccessStatusCode, batch.ErrorMessage);
        Assert.Equal(a, batch.GetOperationResultAtIndex<Customer>(0).Resource);
        Assert.Equal("In a batch", (await container.ReadItemAsync<Customer>(sameKey.Id, new PartitionKey(sameKey.Email), cancellationToken: Ct)).Resource.Name);

        List<Customer> changes = [];
        using (FeedIterator<Customer> feed = container.GetChangeFeedIterator<Customer>(ChangeFeedStartFrom.Beginning(FeedRange.FromPartitionKey(new PartitionKey(b.Email))), ChangeFeedMode.LatestVersion))
        {
            while (feed.HasMoreResults)
            {
                FeedResponse<Customer> page = await feed.ReadNextAsync(Ct);
                if (page.StatusCode == System.Net.HttpStatusCode.NotModified)
                {
                    break;
                }

                changes.AddRange(page);
            }
        }

        Assert.Equal([b], changes);

        using (ResponseMessage deleted = await container.DeleteAllItemsByPartitionKeyStreamAsync(new PartitionKey(a.Email), cancellationToken: Ct))
        {
            deleted.EnsureSuccessStatusCode();
        }

        Assert.Equal([b], await AllAsync(container.GetItemQueryIterator<Customer>("SELECT * FROM c")));
    }

    public static TheoryData<JsonProcessor, bool> BindingCases => new()
    {
        { JsonProcessor.Stream, false }, { JsonProcessor.Stream, true }, { JsonProcessor.Newtonsoft, false }, { JsonProcessor.Newtonsoft, true },
    };

    [Theory]
    [MemberData(nameof(BindingCases))]
    public async Task BoundAndCommittedDocuments_BindToTheStoredIdAndKey_AndACopiedCellIsRefused(JsonProcessor processor, bool commit)
    {
        ContainerEncryptionPolicy policy = Options(processor).Policy!;
        var bound = new ContainerEncryptionPolicy(policy.DataEncryptionKeyId, policy.IncludedPaths) { Bind = true, Commit = commit };
        (Container raw, Container container) = await fixture.CreateContainerAsync("/email", new EncryptionContainerOptions { JsonProcessor = processor, Policy = bound }, Ct);
        Customer ada = NewCustomer();
        Customer bob = NewCustomer() with { Ssn = "219-09-9999" };
        await container.CreateItemAsync(ada, new PartitionKey(ada.Email), cancellationToken: Ct);
        await container.CreateItemAsync(bob, new PartitionKey(bob.Email), cancellationToken: Ct);
        Assert.Equal(ada, (await container.ReadItemAsync<Customer>(ada.Id, new PartitionKey(ada.Email), cancellationToken: Ct)).Resource);
        await container.ReplaceItemAsync(ada with { Name = "Replaced" }, ada.Id, new PartitionKey(ada.Email), cancellationToken: Ct);
        ItemResponse<Customer> patched = await container.PatchItemAsync<Customer>(ada.Id, new PartitionKey(ada.Email), [PatchOperation.Set("/name", "Patched")], cancellationToken: Ct);
        Assert.Equal(ada with { Name = "Patched" }, patched.Resource);
        Assert.Equal(2, (await AllAsync(container.GetItemQueryIterator<Customer>("SELECT * FROM c"))).Count);

        List<JObject> stored = await RawRowsAsync(raw);
        JObject storedAda = stored.Single(r => (string)r["name"]! == "Patched");
        JObject storedBob = stored.Single(r => (string)r["name"]! != "Patched");
        string[] crit = [.. storedAda["_ei"]!["_ev"]!["crit"]!.Select(f => (string)f!)];
        Assert.Contains("bind", crit);
        Assert.Contains("id", crit);
        Assert.Equal(commit, crit.Contains("commit"));

        // Ada's SSN cell copied raw into Bob's document: bound to Ada's stored id and key, so refused there.
        storedBob["ssn"] = storedAda["ssn"]!.DeepClone();
        foreach (string system in new[] { "_rid", "_self", "_etag", "_attachments", "_ts", "_lsn" })
        {
            storedBob.Remove(system);
        }

        using (ResponseMessage replaced = await raw.ReplaceItemStreamAsync(PointOperationTests.ToStream(storedBob.ToString(Formatting.None)), (string)storedBob["id"]!, new PartitionKey((string)storedBob["email"]!), cancellationToken: Ct))
        {
            replaced.EnsureSuccessStatusCode();
        }

        EncryptionException refused = await Assert.ThrowsAsync<EncryptionException>(() => container.ReadItemAsync<Customer>(bob.Id, new PartitionKey(bob.Email), cancellationToken: Ct));
        Assert.Equal(EncryptionErrorKind.CellBindingMismatch, refused.Kind);
        Assert.DoesNotContain(bob.Id, refused.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task OnlyTheId_OrOnlyTheKey_AreEncryptedWhenThePolicySaysSo(JsonProcessor processor)
    {
        (Container rawId, Container idOnly) = await fixture.CreateContainerAsync("/email", Options(processor, id: true, key: false), Ct);
        (Container rawKey, Container keyOnly) = await fixture.CreateContainerAsync("/email", Options(processor, id: false, key: true), Ct);
        Customer customer = NewCustomer();
        await idOnly.CreateItemAsync(customer, new PartitionKey(customer.Email), cancellationToken: Ct);
        await keyOnly.CreateItemAsync(customer, new PartitionKey(customer.Email), cancellationToken: Ct);
        AssertStoredAsCipherText(Assert.Single(await RawRowsAsync(rawId)), customer, id: true, key: false);
        AssertStoredAsCipherText(Assert.Single(await RawRowsAsync(rawKey)), customer, id: false, key: true);
        Assert.Equal(customer, (await idOnly.ReadItemAsync<Customer>(customer.Id, new PartitionKey(customer.Email), cancellationToken: Ct)).Resource);
        Assert.Equal(customer, (await keyOnly.ReadItemAsync<Customer>(customer.Id, new PartitionKey(customer.Email), cancellationToken: Ct)).Resource);

        // Only an encrypted id needs format 101 (its stored alphabet is the feature 'id'); a key alone stays format 3.
        Assert.Equal(101, (int)Assert.Single(await RawRowsAsync(rawId))["_ei"]!["_ef"]!);
        Assert.Equal(3, (int)Assert.Single(await RawRowsAsync(rawKey))["_ei"]!["_ef"]!);
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task HierarchicalKey_EncryptedComponent_PointReadsAndPrefixQueries(JsonProcessor processor)
    {
        (Container probe, Container _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        ContainerResponse created = await probe.Database.CreateContainerAsync(new ContainerProperties("hier-" + Guid.NewGuid().ToString("N")[..8], ["/tenant", "/email"]), cancellationToken: Ct);
        Container container = created.Container.WithEncryptor(fixture.Encryptor, Options(processor));
        JObject first = JObject.FromObject(new { id = "h1@example.com", tenant = "contoso", email = "ada@example.com", ssn = "1", name = "Ada" });
        JObject second = JObject.FromObject(new { id = "h2@example.com", tenant = "contoso", email = "bob@example.com", ssn = "2", name = "Bob" });
        JObject other = JObject.FromObject(new { id = "h3@example.com", tenant = "fabrikam", email = "ada@example.com", ssn = "3", name = "Ada F" });
        foreach (JObject document in new[] { first, second, other })
        {
            await container.CreateItemAsync(document, new PartitionKeyBuilder().Add((string)document["tenant"]!).Add((string)document["email"]!).Build(), cancellationToken: Ct);
        }

        PartitionKey key = new PartitionKeyBuilder().Add("contoso").Add("ada@example.com").Build();
        JObject read = (await container.ReadItemAsync<JObject>("h1@example.com", key, cancellationToken: Ct)).Resource;
        Assert.Equal("ada@example.com", (string?)read["email"]);
        List<JObject> tenant = await AllAsync(container.GetItemQueryIterator<JObject>("SELECT * FROM c", requestOptions: new QueryRequestOptions { PartitionKey = new PartitionKeyBuilder().Add("contoso").Build() }));
        Assert.Equal(["h1@example.com", "h2@example.com"], tenant.Select(r => (string)r["id"]!).Order(StringComparer.Ordinal));
        List<JObject> full = await AllAsync(container.GetItemQueryIterator<JObject>("SELECT * FROM c", requestOptions: new QueryRequestOptions { PartitionKey = key }));
        Assert.Equal("h1@example.com", (string?)Assert.Single(full)["id"]);
        JObject stored = Assert.Single(await RawRowsAsync(created.Container), r => (string)r["tenant"]! == "fabrikam");
        Assert.NotEqual("ada@example.com", (string?)stored["email"]);
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task GeneratedIds_UnicodeAndCharactersCosmosRefusesInIds_RoundTripAndAreFound(JsonProcessor processor)
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync("/email", Options(processor), Ct);
        char[] alphabet = ['a', 'Z', '0', '.', '/', '\\', '?', '#', '+', '=', ' ', '\u00e9', '\u4e2d', '\ud83d', '\ude00', '%', '\'', '"'];
        Gen<string> ids = (from length in Gen.Choose(1, 40) from chars in Gen.ArrayOf(Gen.Elements(alphabet), length) select new string(chars))
            .Where(text => IsWellFormed(text) && Encoding.UTF8.GetByteCount(text) <= 127);
        int index = 0;
        Prop.ForAll(ids.ToArbitrary(), id =>
        {
            string email = "g" + (index++).ToString(CultureInfo.InvariantCulture) + "@example.com";
            var customer = new Customer { Id = id, Email = email };
            container.CreateItemAsync(customer, new PartitionKey(email), cancellationToken: Ct).GetAwaiter().GetResult();
            Assert.Equal(customer, container.ReadItemAsync<Customer>(id, new PartitionKey(email), cancellationToken: Ct).GetAwaiter().GetResult().Resource);
            // Generated ids repeat across keys (an id is unique within its partition key only).
            Assert.Equal([customer], AllAsync(container.GetItemQueryIterator<Customer>(new QueryDefinition("SELECT * FROM c WHERE c.id = @id AND c.email = @e").WithParameter("@id", id).WithParameter("@e", email))).GetAwaiter().GetResult());
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(30));
        foreach (JObject stored in await RawRowsAsync(raw))
        {
            string storedId = (string)stored["id"]!;
            Assert.True(storedId.Length <= 255 && storedId.IndexOfAny(['/', '\\', '?', '#']) < 0, storedId);
        }
    }

    private static bool IsWellFormed(string text)
    {
        for (int i = 0; i < text.Length; i++)
        {
            if (char.IsHighSurrogate(text[i]) && i + 1 < text.Length && char.IsLowSurrogate(text[i + 1]))
            {
                i++;
            }
            else if (char.IsSurrogate(text[i]))
            {
                return false;
            }
        }

        return true;
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task Refusals_NameThePathAndSendNothing(JsonProcessor processor)
    {
        EncryptionException randomizedId = Assert.Throws<EncryptionException>(() => new ContainerEncryptionPolicy(EncryptionFixture.Dek1, ["/id", "/ssn"]));
        Assert.Equal(EncryptionErrorKind.InvalidOptions, randomizedId.Kind);
        Assert.Contains("deterministically", randomizedId.Message, StringComparison.Ordinal);

        EncryptionException accepted = Assert.Throws<EncryptionException>(() => fixture.CreateContainerAsync("/email", new EncryptionContainerOptions
        {
            JsonProcessor = processor,
            Policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, [new EncryptionPolicyIncludedPath("/id") { EncryptionType = PathEncryptionType.Deterministic }]) { AcceptedDataEncryptionKeyIds = [EncryptionFixture.Dek2] },
        }, Ct).GetAwaiter().GetResult());
        Assert.Contains("AcceptedDataEncryptionKeyIds", accepted.Message, StringComparison.Ordinal);

        (Container raw, Container randomizedKey) = await fixture.CreateContainerAsync("/email", new EncryptionContainerOptions
        {
            JsonProcessor = processor,
            Policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, ["/email", "/ssn"]),
        }, Ct);
        Customer customer = NewCustomer();
        EncryptionException key = await Assert.ThrowsAsync<EncryptionException>(() => randomizedKey.CreateItemAsync(customer, new PartitionKey(customer.Email), cancellationToken: Ct));
        Assert.Equal("/email", key.Path);
        Assert.Empty(await RawRowsAsync(raw));

        (Container _, Container container) = await fixture.CreateContainerAsync("/email", Options(processor), Ct);
        EncryptionException longId = await Assert.ThrowsAsync<EncryptionException>(() => container.CreateItemAsync(NewCustomer(id: new string('x', 128)), new PartitionKey("k@example.com"), cancellationToken: Ct));
        Assert.Equal(EncryptionErrorKind.LimitExceeded, longId.Kind);
        EncryptionException number = await Assert.ThrowsAsync<EncryptionException>(() => container.ReadItemAsync<Customer>("x", new PartitionKey(42), cancellationToken: Ct));
        Assert.Equal("/email", number.Path);
    }
}
