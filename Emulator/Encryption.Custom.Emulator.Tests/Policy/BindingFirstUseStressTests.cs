using System.Diagnostics;
using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Policy;

/// <summary>
/// The binding target of a container whose policy binds is resolved lazily, by the first operation of each wrapper
/// (BodyCrypto.GetProcessorAsync over PartitionKeyGuard's one read), and concurrent first operations may each resolve
/// it. Here many operations race to be a fresh wrapper's first: writes, point and stream reads and queries, released
/// together. On a container that can bind every one succeeds and every document is bound and reads back; on one that
/// cannot (a nested partition-key path) every one fails the same way and nothing is stored. Bounded: a fixed number
/// of rounds, each a fixed number of operations, and a time budget after which no new round starts.
/// </summary>
public sealed class BindingFirstUseStressTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private const int Rounds = 4;
    private const int OperationsPerRound = 48;
    private const int Seeded = 8;
    private static readonly TimeSpan s_budget = TimeSpan.FromSeconds(30);

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public static TheoryData<JsonProcessor> Processors => [JsonProcessor.Stream, JsonProcessor.Newtonsoft];

    // Automatic binding: the nested selector makes this policy bind (Bind left at its default).
    private static EncryptionContainerOptions Bound(JsonProcessor processor) => new()
    {
        JsonProcessor = processor,
        Policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, ["/ssn", "/address/city", "/cards/[]/number"]),
    };

    private static JObject Person(string id, string partitionKey) => JObject.Parse($$"""
        {"id":"{{id}}","pk":"{{partitionKey}}","ssn":"SECRET-ssn-{{id}}","address":{"street":"1 Main St","city":"SECRET-city-{{id}}"},
         "cards":[{"number":"SECRET-card-{{id}}","expiry":"12/30"}]}
        """);

    private static string PartitionOf(int i) => "p" + (i % 3).ToString(System.Globalization.CultureInfo.InvariantCulture);

    private static JObject WithoutSystemProperties(JObject document)
    {
        var copy = (JObject)document.DeepClone();
        foreach (string name in new[] { "_rid", "_self", "_etag", "_attachments", "_ts", "_lsn" })
        {
            copy.Remove(name);
        }

        return copy;
    }

    // Runs every operation at once, released together by one gate, and waits for all of them.
    private static async Task<Exception?[]> RaceAsync(IReadOnlyList<Func<Task>> operations)
    {
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task<Exception?>[] running = [.. operations.Select(async operation =>
        {
            await gate.Task;
            try
            {
                await operation();
                return (Exception?)null;
            }
            catch (Exception exception)
            {
                return exception;
            }
        })];
        gate.SetResult();
        return await Task.WhenAll(running);
    }

    [Theory]
    [MemberData(nameof(Processors))]
    public async Task ConcurrentFirstOperationsOfFreshWrappers_AllSucceed_AndEveryDocumentIsBound(JsonProcessor processor)
    {
        (Container raw, Container seeding) = await fixture.CreateContainerAsync(options: Bound(processor), cancellationToken: Ct);
        for (int i = 0; i < Seeded; i++)
        {
            await seeding.CreateItemAsync(Person("seed-" + i, PartitionOf(i)), new PartitionKey(PartitionOf(i)), cancellationToken: Ct);
        }

        var written = new List<JObject>();
        var clock = Stopwatch.StartNew();
        int rounds = 0;
        while (rounds < Rounds && (rounds == 0 || clock.Elapsed < s_budget))
        {
            // A fresh wrapper per round: none of these operations finds the binding resolved.
            Container fresh = raw.WithEncryptor(fixture.Encryptor, Bound(processor));
            var operations = new List<Func<Task>>();
            for (int i = 0; i < OperationsPerRound; i++)
            {
                int n = i;
                string pk = PartitionOf(n);
                switch (n % 4)
                {
                    case 0:
                    case 1:
                        JObject person = Person($"r{rounds}-w{n}", pk);
                        written.Add(person);
                        operations.Add(() => fresh.CreateItemAsync(person, new PartitionKey(pk), cancellationToken: Ct));
                        break;
                    case 2:
                        string seedId = "seed-" + (n % Seeded);
                        string seedPk = PartitionOf(n % Seeded);
                        operations.Add(async () =>
                        {
                            JObject read = (await fresh.ReadItemAsync<JObject>(seedId, new PartitionKey(seedPk), cancellationToken: Ct)).Resource;
                            Assert.True(JToken.DeepEquals(Person(seedId, seedPk), WithoutSystemProperties(read)), read.ToString());
                        });
                        break;
                    default:
                        operations.Add(async () =>
                        {
                            using FeedIterator<JObject> query = fresh.GetItemQueryIterator<JObject>("SELECT * FROM c WHERE STARTSWITH(c.id, 'seed-')");
                            int count = 0;
                            while (query.HasMoreResults)
                            {
                                foreach (JObject document in await query.ReadNextAsync(Ct))
                                {
                                    Assert.Equal($"SECRET-card-{document["id"]}", (string?)document["cards"]![0]!["number"]);
                                    count++;
                                }
                            }

                            Assert.Equal(Seeded, count);
                        });
                        break;
                }
            }

            Exception?[] outcomes = await RaceAsync(operations);
            Exception? first = outcomes.FirstOrDefault(e => e is not null);
            Assert.True(first is null, $"round {rounds}: {outcomes.Count(e => e is not null)} of {outcomes.Length} first operations failed; the first: {first}");
            rounds++;
        }

        Assert.True(rounds >= 1);

        // Every document written in the race is stored bound (format 101, bind, version 2 cells) and reads back
        // through yet another fresh wrapper.
        Container verifier = raw.WithEncryptor(fixture.Encryptor, Bound(processor));
        foreach (JObject person in written)
        {
            string id = (string)person["id"]!;
            var partitionKey = new PartitionKey((string)person["pk"]!);
            JObject stored = await RawDocuments.ReadAsync(raw, id, partitionKey, Ct);
            Assert.DoesNotContain("SECRET", stored.ToString(Formatting.None), StringComparison.Ordinal);
            Assert.Contains("bind", stored["_ei"]!["_ev"]!["crit"]!.Select(f => (string)f!));
            Assert.Equal(0x02, Convert.FromBase64String((string)stored["address"]!["city"]!)[1]);
            JObject read = (await verifier.ReadItemAsync<JObject>(id, partitionKey, cancellationToken: Ct)).Resource;
            Assert.True(JToken.DeepEquals(person, WithoutSystemProperties(read)), read.ToString());
        }
    }

    [Fact]
    public async Task ConcurrentFirstWritesOnAContainerThatCannotBind_AllFailTheSameWay_AndNothingIsStored()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync("/tenant/id", Bound(JsonProcessor.Stream), Ct);
        var operations = new List<Func<Task>>();
        for (int i = 0; i < OperationsPerRound; i++)
        {
            JObject document = JObject.Parse($$"""{"id":"n{{i}}","tenant":{"id":"t1"},"ssn":"SECRET-ssn","address":{"city":"SECRET-city"} }""");
            operations.Add(() => container.CreateItemAsync(document, new PartitionKey("t1"), cancellationToken: Ct));
        }

        Exception?[] outcomes = await RaceAsync(operations);

        Assert.All(outcomes, outcome =>
        {
            EncryptionException refused = Assert.IsType<EncryptionException>(outcome);
            Assert.Equal(EncryptionErrorKind.InvalidOptions, refused.Kind);
            Assert.Contains("/tenant/id", refused.Message, StringComparison.Ordinal);
        });
        using FeedIterator<JObject> stored = raw.GetItemQueryIterator<JObject>("SELECT c.id FROM c");
        var ids = new List<JObject>();
        while (stored.HasMoreResults)
        {
            ids.AddRange(await stored.ReadNextAsync(Ct));
        }

        Assert.Empty(ids);
    }
}
