using Encryption.Custom.Emulator.Tests.Encryption;
using Microsoft.Azure.Cosmos.Linq;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Policy;

/// <summary>
/// A container with a <see cref="ContainerEncryptionPolicy"/>: every write API encrypts without options, mistakes are
/// refused before anything is stored, and in the default mode every read API refuses plaintext in a policy path.
/// </summary>
public sealed class PolicyTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static readonly string[] s_policyPaths = ["/ssn", "/salary", "/address"];

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static EncryptionContainerOptions WithPolicy(PlaintextPolicy mode = PlaintextPolicy.WriteEncryptedForbidPlaintext, string dek = EncryptionFixture.Dek1, params string[] accepted) => new()
    {
        Policy = new ContainerEncryptionPolicy(dek, s_policyPaths) { PlaintextPolicy = mode, AcceptedDataEncryptionKeyIds = accepted },
    };

    private static async Task AssertEncryptedByPolicyAsync(Container raw, SecretDocument document, string dek = EncryptionFixture.Dek1)
    {
        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.Equal(dek, (string?)stored["_ei"]?["_en"]);
        Assert.Equal(s_policyPaths, stored["_ei"]!["_ep"]!.Select(p => (string)p!));
        Assert.NotEqual(document.Ssn, (string?)stored["ssn"]);
        Assert.Equal(JTokenType.String, stored["address"]!.Type);
        Assert.Equal(document.Name, (string?)stored["name"]);
    }

    private static async Task StoreRawAsync(Container raw, JObject stored)
    {
        using MemoryStream body = PointOperationTests.ToStream(stored.ToString(Formatting.None));
        using ResponseMessage response = await raw.UpsertItemStreamAsync(body, new PartitionKey((string)stored["pk"]!), cancellationToken: Ct);
        response.EnsureSuccessStatusCode();
    }

    [Fact]
    public async Task EveryPointWriteApi_EncryptsByPolicy_WithoutOptions()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: WithPolicy(), cancellationToken: Ct);
        SecretDocument typed = SecretDocument.Create();
        SecretDocument stream = SecretDocument.Create();
        SecretDocument upserted = SecretDocument.Create();
        SecretDocument streamUpserted = SecretDocument.Create();

        await container.CreateItemAsync(typed, typed.PartitionKey, cancellationToken: Ct);
        await AssertEncryptedByPolicyAsync(raw, typed);
        await container.ReplaceItemAsync(typed with { Ssn = "replaced" }, typed.Id, typed.PartitionKey, cancellationToken: Ct);
        await AssertEncryptedByPolicyAsync(raw, typed with { Ssn = "replaced" });
        await container.UpsertItemAsync(upserted, upserted.PartitionKey, cancellationToken: Ct);
        await AssertEncryptedByPolicyAsync(raw, upserted);

        using (ResponseMessage created = await container.CreateItemStreamAsync(PointOperationTests.ToStream(JsonConvert.SerializeObject(stream)), stream.PartitionKey, cancellationToken: Ct))
        {
            created.EnsureSuccessStatusCode();
        }

        await AssertEncryptedByPolicyAsync(raw, stream);
        using (ResponseMessage replaced = await container.ReplaceItemStreamAsync(PointOperationTests.ToStream(JsonConvert.SerializeObject(stream with { Ssn = "r2" })), stream.Id, stream.PartitionKey, cancellationToken: Ct))
        {
            replaced.EnsureSuccessStatusCode();
        }

        await AssertEncryptedByPolicyAsync(raw, stream with { Ssn = "r2" });
        using (ResponseMessage upsertedStream = await container.UpsertItemStreamAsync(PointOperationTests.ToStream(JsonConvert.SerializeObject(streamUpserted)), streamUpserted.PartitionKey, cancellationToken: Ct))
        {
            upsertedStream.EnsureSuccessStatusCode();
        }

        await AssertEncryptedByPolicyAsync(raw, streamUpserted);
        SecretDocument read = (await container.ReadItemAsync<SecretDocument>(typed.Id, typed.PartitionKey, cancellationToken: Ct)).Resource;
        Assert.True((typed with { Ssn = "replaced" }).ValueEquals(read));
    }

    [Fact]
    public async Task Patch_OfPolicyPath_EncryptsWithoutOptions()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: WithPolicy(), cancellationToken: Ct);
        SecretDocument document = SecretDocument.Create();
        await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);

        await container.PatchItemAsync<SecretDocument>(document.Id, document.PartitionKey, [PatchOperation.Set("/ssn", "patched"), PatchOperation.Set("/name", "Bob")], cancellationToken: Ct);

        JObject stored = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.NotEqual("patched", (string?)stored["ssn"]);
        Assert.Equal("Bob", (string?)stored["name"]);
        SecretDocument read = (await container.ReadItemAsync<SecretDocument>(document.Id, document.PartitionKey, cancellationToken: Ct)).Resource;
        Assert.Equal("patched", read.Ssn);
    }

    [Fact]
    public async Task CamelCaseMistake_IsRefusedNamingBoth_AndNothingIsStored()
    {
        (Container raw, Container _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        Container container = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, ["/Ssn"]) });
        SecretDocument document = SecretDocument.Create();

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Contains("'/ssn'", error.Message, StringComparison.Ordinal);
        Assert.Contains("'/Ssn'", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(document.Ssn, error.ToString(), StringComparison.Ordinal);
        using ResponseMessage stored = await raw.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, stored.StatusCode);
    }

    [Fact]
    public async Task CamelCaseMistake_InRequestOptions_IsRefusedToo()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        SecretDocument document = SecretDocument.Create();

        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, "/Ssn"), Ct));

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Equal("/Ssn", error.Path);
        using ResponseMessage stored = await raw.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, stored.StatusCode);
    }

    [Fact]
    public async Task RequestThatEncryptsLessThanPolicy_OrNothing_IsRefusedBeforeSending()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: WithPolicy(), cancellationToken: Ct);
        SecretDocument document = SecretDocument.Create();

        EncryptionException fewer = await Assert.ThrowsAsync<EncryptionException>(() => container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, "/ssn"), Ct));
        EncryptionException otherKey = await Assert.ThrowsAsync<EncryptionException>(() => container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek2, s_policyPaths), Ct));
        EncryptionException none = await Assert.ThrowsAsync<EncryptionException>(() => container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1), Ct));

        Assert.Equal("/salary", fewer.Path);
        Assert.All(new[] { fewer, otherKey, none }, e => Assert.Equal(EncryptionErrorKind.InvalidOptions, e.Kind));
        using ResponseMessage stored = await raw.ReadItemStreamAsync(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, stored.StatusCode);

        // More than the policy is fine.
        await container.CreateItemAsync(document, document.PartitionKey, EncryptionFixture.Encrypt(EncryptionFixture.Dek1, [.. s_policyPaths, "/notes", "/tags"]), Ct);
        JObject written = await RawDocuments.ReadAsync(raw, document.Id, document.PartitionKey, Ct);
        Assert.Contains("/tags", written["_ei"]!["_ep"]!.Select(p => (string)p!));
    }

    public static TheoryData<string> Tampering => ["plaintext", "stripped", "never-encrypted"];

    // Tamperings that leave plaintext (a stripped envelope leaves ciphertext, which no mode accepts).
    public static TheoryData<string> PlaintextTampering => ["plaintext", "never-encrypted"];

    // Writes two good documents and one bad one (in partition p0), returns the bad one's id.
    private async Task<(Container Raw, SecretDocument Bad, SecretDocument[] Good)> SeedTamperedAsync(string tampering)
    {
        (Container raw, Container writer) = await fixture.CreateContainerAsync(options: WithPolicy(), cancellationToken: Ct);
        SecretDocument[] good = [SecretDocument.Create(), SecretDocument.Create()];
        foreach (SecretDocument document in good)
        {
            await writer.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
        }

        SecretDocument bad = SecretDocument.Create() with { Ssn = "plain-ssn-value" };
        await writer.CreateItemAsync(bad, bad.PartitionKey, cancellationToken: Ct);
        JObject stored = await RawDocuments.ReadAsync(raw, bad.Id, bad.PartitionKey, Ct);
        switch (tampering)
        {
            case "plaintext":
                // The ciphertext is replaced by plaintext and dropped from _ep: a consistent-looking document.
                stored["ssn"] = bad.Ssn;
                stored["_ei"]!["_ep"] = new JArray("/salary", "/address");
                break;
            case "stripped":
                stored.Remove("_ei");
                break;
            default:
                stored = JObject.FromObject(bad);
                break;
        }

        await StoreRawAsync(raw, stored);
        return (raw, bad, good);
    }

    [Theory]
    [MemberData(nameof(Tampering))]
    public async Task ForbidPlaintext_EveryReadApi_RefusesTheDocument_WithItsIdAndPath(string tampering)
    {
        (Container raw, SecretDocument bad, SecretDocument[] good) = await SeedTamperedAsync(tampering);
        const string expectedPath = "/ssn"; // the first policy property in document order
        foreach (JsonProcessor processor in new[] { JsonProcessor.Stream, JsonProcessor.Newtonsoft })
        {
            Container container = raw.WithEncryptor(fixture.Encryptor, new EncryptionContainerOptions { Policy = WithPolicy().Policy, JsonProcessor = processor });
            var errors = new List<EncryptionException>
            {
                await Assert.ThrowsAsync<EncryptionException>(() => container.ReadItemAsync<SecretDocument>(bad.Id, bad.PartitionKey, cancellationToken: Ct)),
                await Assert.ThrowsAsync<EncryptionException>(() => container.ReadItemStreamAsync(bad.Id, bad.PartitionKey, cancellationToken: Ct)),
                await Assert.ThrowsAsync<EncryptionException>(async () => await (await container.ReadItemAsync<DecryptableItem>(bad.Id, bad.PartitionKey, cancellationToken: Ct)).Resource.GetItemAsync<SecretDocument>(Ct)),
                await Assert.ThrowsAsync<EncryptionException>(() => container.GetItemQueryIterator<SecretDocument>("SELECT * FROM c").ReadAllAsync(Ct)),
                await Assert.ThrowsAsync<EncryptionException>(() => container.ReadManyItemsAsync<SecretDocument>([(bad.Id, bad.PartitionKey), (good[0].Id, good[0].PartitionKey)], cancellationToken: Ct)),
                await Assert.ThrowsAsync<EncryptionException>(() => container.GetChangeFeedIterator<SecretDocument>(ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion).ReadChangesAsync(Ct)),
            };

            // With DecryptableItem the bad document fails alone.
            List<DecryptableItem> items = await container.GetItemQueryIterator<DecryptableItem>("SELECT * FROM c").ReadAllAsync(Ct);
            int decrypted = 0;
            foreach (DecryptableItem item in items)
            {
                try
                {
                    (SecretDocument document, _) = await item.GetItemAsync<SecretDocument>(Ct);
                    Assert.True(good.Single(g => g.Id == document.Id).ValueEquals(document));
                    decrypted++;
                }
                catch (EncryptionException error)
                {
                    errors.Add(error);
                }
            }

            Assert.Equal(good.Length, decrypted);
            Assert.Equal(7, errors.Count);
            foreach (EncryptionException error in errors)
            {
                // A stripped envelope leaves ciphertext behind: recognised as such, never read as plaintext.
                Assert.Equal(tampering == "stripped" ? EncryptionErrorKind.UnlistedCipherText : EncryptionErrorKind.PlaintextForbidden, error.Kind);
                Assert.Equal(expectedPath, error.Path);
                Assert.Contains(bad.Id, error.Message, StringComparison.Ordinal);
                Assert.DoesNotContain(bad.Ssn, error.ToString(), StringComparison.Ordinal);
            }
        }
    }

    [Theory]
    [MemberData(nameof(PlaintextTampering))]
    public async Task ReadBothModes_AcceptTheDocument(string tampering)
    {
        (Container raw, SecretDocument bad, SecretDocument[] good) = await SeedTamperedAsync(tampering);
        foreach (PlaintextPolicy mode in new[] { PlaintextPolicy.WritePlaintextReadBoth, PlaintextPolicy.WriteEncryptedReadBoth })
        {
            Container container = raw.WithEncryptor(fixture.Encryptor, WithPolicy(mode));

            using ResponseMessage point = await container.ReadItemStreamAsync(bad.Id, bad.PartitionKey, cancellationToken: Ct);
            point.EnsureSuccessStatusCode();
            JObject pointRead = await PointOperationTests.ReadJsonAsync(point.Content);
            List<JObject> query = await container.GetItemQueryIterator<JObject>("SELECT * FROM c").ReadAllAsync(Ct);
            FeedResponse<JObject> many = await container.ReadManyItemsAsync<JObject>([(bad.Id, bad.PartitionKey), (good[0].Id, good[0].PartitionKey)], cancellationToken: Ct);
            (IReadOnlyList<FeedResponse<JObject>> changes, _) = await container.GetChangeFeedIterator<JObject>(ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion).ReadChangesAsync(Ct);

            Assert.Equal(bad.Id, (string?)pointRead["id"]);
            Assert.Equal(3, query.Count);
            Assert.Equal(2, many.Count);
            Assert.Equal(3, changes.SelectMany(p => p).Count());
            Assert.Equal(bad.Ssn, (string?)query.Single(d => (string?)d["id"] == bad.Id)["ssn"]);
            Assert.Equal(good[0].Ssn, (string?)query.Single(d => (string?)d["id"] == good[0].Id)["ssn"]);
        }
    }

    [Fact]
    public async Task ReadBothModes_RefuseCipherTextWhoseEnvelopeWasStripped()
    {
        (Container raw, SecretDocument bad, _) = await SeedTamperedAsync("stripped");
        foreach (PlaintextPolicy mode in new[] { PlaintextPolicy.WritePlaintextReadBoth, PlaintextPolicy.WriteEncryptedReadBoth })
        {
            Container container = raw.WithEncryptor(fixture.Encryptor, WithPolicy(mode));

            EncryptionException point = await Assert.ThrowsAsync<EncryptionException>(() => container.ReadItemAsync<JObject>(bad.Id, bad.PartitionKey, cancellationToken: Ct));
            EncryptionException query = await Assert.ThrowsAsync<EncryptionException>(() => container.GetItemQueryIterator<JObject>("SELECT * FROM c").ReadAllAsync(Ct));

            Assert.Equal(EncryptionErrorKind.UnlistedCipherText, point.Kind);
            Assert.Equal(EncryptionErrorKind.UnlistedCipherText, query.Kind);
            Assert.Contains(bad.Id, query.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task WritePlaintextMode_WritesPlaintext_WhileWriteEncryptedModeEncrypts()
    {
        (Container raw, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        SecretDocument plain = SecretDocument.Create();
        SecretDocument encrypted = SecretDocument.Create();

        await raw.WithEncryptor(fixture.Encryptor, WithPolicy(PlaintextPolicy.WritePlaintextReadBoth)).CreateItemAsync(plain, plain.PartitionKey, cancellationToken: Ct);
        await raw.WithEncryptor(fixture.Encryptor, WithPolicy(PlaintextPolicy.WriteEncryptedReadBoth)).CreateItemAsync(encrypted, encrypted.PartitionKey, cancellationToken: Ct);

        Assert.Equal(plain.Ssn, (string?)(await RawDocuments.ReadAsync(raw, plain.Id, plain.PartitionKey, Ct))["ssn"]);
        await AssertEncryptedByPolicyAsync(raw, encrypted);
    }

    [Fact]
    public async Task Rotation_AcceptedPreviousKey_ReadsBoth_OtherKeysAreRefused()
    {
        (Container raw, Container old) = await fixture.CreateContainerAsync(options: WithPolicy(dek: EncryptionFixture.Dek1), cancellationToken: Ct);
        SecretDocument before = SecretDocument.Create();
        await old.CreateItemAsync(before, before.PartitionKey, cancellationToken: Ct);
        Container rotated = raw.WithEncryptor(fixture.Encryptor, WithPolicy(dek: EncryptionFixture.Dek2, accepted: [EncryptionFixture.Dek1]));
        SecretDocument after = SecretDocument.Create();
        await rotated.CreateItemAsync(after, after.PartitionKey, cancellationToken: Ct);

        await AssertEncryptedByPolicyAsync(raw, after, EncryptionFixture.Dek2);
        List<SecretDocument> both = await rotated.GetItemQueryIterator<SecretDocument>("SELECT * FROM c").ReadAllAsync(Ct);
        Assert.Equal(2, both.Count);
        Assert.True(before.ValueEquals(both.Single(d => d.Id == before.Id)));
        Assert.True(after.ValueEquals(both.Single(d => d.Id == after.Id)));

        Container strict = raw.WithEncryptor(fixture.Encryptor, WithPolicy(dek: EncryptionFixture.Dek2));
        EncryptionException error = await Assert.ThrowsAsync<EncryptionException>(() => strict.ReadItemAsync<SecretDocument>(before.Id, before.PartitionKey, cancellationToken: Ct));
        Assert.Equal(EncryptionErrorKind.KeyNotAccepted, error.Kind);
        Assert.Equal(EncryptionFixture.Dek1, error.DataEncryptionKeyId);
    }

    [Fact]
    public async Task LinqWhereOrOrderByOnRandomizedPath_IsRefusedBeforeSending()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: WithPolicy(), cancellationToken: Ct);
        SecretDocument document = SecretDocument.Create();
        await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
        IOrderedQueryable<SecretDocument> items = container.GetItemLinqQueryable<SecretDocument>();

        NotSupportedException where = Assert.Throws<NotSupportedException>(() => container.ToEncryptionFeedIterator(items.Where(d => d.Ssn == document.Ssn)));
        NotSupportedException orderBy = Assert.Throws<NotSupportedException>(() => container.ToEncryptionFeedIterator(items.OrderBy(d => d.Salary)));
        NotSupportedException sql = Assert.Throws<NotSupportedException>(() => container.GetItemQueryIterator<SecretDocument>(new QueryDefinition("SELECT * FROM c WHERE c.address.city = @c").WithParameter("@c", "x")));

        Assert.Contains("'/ssn'", where.Message, StringComparison.Ordinal);
        Assert.Contains("randomized", where.Message, StringComparison.Ordinal);
        Assert.Contains("'/salary'", orderBy.Message, StringComparison.Ordinal);
        Assert.Contains("'/address'", sql.Message, StringComparison.Ordinal);

        // Other properties, and projections of policy paths, still query.
        List<SecretDocument> byName = await container.ToEncryptionFeedIterator(items.Where(d => d.Name == document.Name).OrderBy(d => d.Id)).ReadAllAsync(Ct);
        Assert.True(document.ValueEquals(Assert.Single(byName)));
    }

    [Fact]
    public async Task Batch_And_Bulk_EncryptByPolicy_WithoutOptions()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(options: WithPolicy(), cancellationToken: Ct);
        SecretDocument first = SecretDocument.Create();
        SecretDocument second = SecretDocument.Create();

        using (TransactionalBatchResponse response = await container.CreateTransactionalBatch(new PartitionKey("p0"))
            .CreateItem(first)
            .UpsertItemStream(PointOperationTests.ToStream(JsonConvert.SerializeObject(second)))
            .PatchItem(first.Id, [PatchOperation.Set("/ssn", "patched")])
            .ExecuteAsync(Ct))
        {
            Assert.True(response.IsSuccessStatusCode, $"batch failed: {response.StatusCode} {response.ErrorMessage}");
        }

        await AssertEncryptedByPolicyAsync(raw, first with { Ssn = "patched" });
        await AssertEncryptedByPolicyAsync(raw, second);

        using CosmosClient bulkClient = fixture.Endpoint.CreateClient(options => options.AllowBulkExecution = true);
        Container bulk = bulkClient.GetContainer(raw.Database.Id, raw.Id).WithEncryptor(fixture.Encryptor, WithPolicy());
        SecretDocument[] documents = [.. Enumerable.Range(0, 20).Select(i => SecretDocument.Create($"p{i % 3}"))];
        await Task.WhenAll(documents.Select(d => bulk.CreateItemAsync(d, d.PartitionKey, cancellationToken: Ct)));
        foreach (SecretDocument document in documents)
        {
            await AssertEncryptedByPolicyAsync(raw, document);
        }
    }
}
