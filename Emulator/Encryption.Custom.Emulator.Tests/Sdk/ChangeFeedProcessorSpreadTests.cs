using System.Collections.Concurrent;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// The change feed processor over a container with several partition key ranges: one lease per range in a
/// real lease container, shared by the instances, every document handled once; a split hands the range's
/// lease on to its children.
/// </summary>
public sealed class ChangeFeedProcessorSpreadTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(60);

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static ChangeFeedProcessor Build(Container container, Container leases, string instance, ConcurrentDictionary<string, int> handled) =>
        container.GetChangeFeedProcessorBuilder<TestDocument>("spread", (changes, _) =>
            {
                foreach (TestDocument change in changes)
                {
                    handled.AddOrUpdate(change.Id, 1, (_, n) => n + 1);
                }

                return Task.CompletedTask;
            })
            .WithInstanceName(instance)
            .WithLeaseContainer(leases)
            .WithStartTime(DateTime.MinValue.ToUniversalTime())
            .WithPollInterval(TimeSpan.FromMilliseconds(200))
            // An instance notices that the other took a lease only when it renews it; until then both read the
            // range. Renewing often keeps that window shorter than the settling wait below.
            .WithLeaseConfiguration(acquireInterval: TimeSpan.FromMilliseconds(500), expirationInterval: TimeSpan.FromSeconds(10), renewInterval: TimeSpan.FromMilliseconds(300))
            .Build();

    private static async Task WaitUntilAsync(Func<Task<bool>> done)
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(Ct);
        timeout.CancelAfter(s_wait);
        while (!await done())
        {
            await Task.Delay(100, timeout.Token);
        }
    }

    private static async Task<List<JObject>> LeasesAsync(Container leases) =>
        (await leases.GetItemQueryIterator<JObject>("SELECT * FROM c").ReadAllAsync(Ct))
            .Where(l => l["LeaseToken"] is not null || l["PartitionId"] is not null)
            .ToList();

    private static string? OwnerOf(JObject lease) => (string?)lease["Owner"];

    /// <summary>
    /// Waits until there are <paramref name="count"/> leases, owned by both instances, and no lease has moved
    /// for a few acquire intervals. The processor delivers at least once: a lease that moves from one
    /// instance to the other restarts from its last checkpoint, so "every document once" holds only for
    /// documents written while the leases stay where they are.
    /// </summary>
    private static async Task WaitForSettledLeasesAsync(Container leases, int count)
    {
        string? settled = null;
        DateTime since = DateTime.UtcNow;
        await WaitUntilAsync(async () =>
        {
            List<JObject> owned = await LeasesAsync(leases);
            string owners = string.Join(",", owned.Select(l => $"{l["id"]}={OwnerOf(l)}").Order());
            if (owners != settled)
            {
                (settled, since) = (owners, DateTime.UtcNow);
            }

            bool spread = owned.Count == count && owned.Select(OwnerOf).Distinct().Count() == Math.Min(2, count);
            return spread && DateTime.UtcNow - since > TimeSpan.FromSeconds(2);
        });
    }

    [Fact]
    public async Task TwoInstances_ShareOneLeasePerRange_AndHandleEveryDocumentOnce_ThroughASplit()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        Container leases = await fixture.CreateContainerAsync("/id", Ct);
        int ranges = (await container.GetFeedRangesAsync(Ct)).Count;
        var handled = new ConcurrentDictionary<string, int>();
        ChangeFeedProcessor first = Build(container, leases, "first", handled);
        ChangeFeedProcessor second = Build(container, leases, "second", handled);
        await first.StartAsync();
        await second.StartAsync();
        try
        {
            var documents = new List<TestDocument>();
            async Task WriteAsync(int count, string prefix)
            {
                for (int i = 0; i < count; i++)
                {
                    TestDocument document = TestDocument.Create($"{prefix}-{i}", $"{prefix}{i}", i);
                    await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
                    documents.Add(document);
                }
            }

            // Documents are written only once the leases have settled (see WaitForSettledLeasesAsync).
            await WaitForSettledLeasesAsync(leases, ranges);
            await WriteAsync(24, "before");
            await WaitUntilAsync(() => Task.FromResult(documents.All(d => handled.ContainsKey(d.Id))));

            // The split range's lease is replaced by one per child, which the instances share out again.
            bool split = await PartitionSplits.SplitAsync(fixture.Endpoint, container, cancellationToken: Ct);
            await WaitForSettledLeasesAsync(leases, split ? ranges + 1 : ranges);
            await WriteAsync(24, "after");
            await WaitUntilAsync(() => Task.FromResult(documents.All(d => handled.ContainsKey(d.Id))));

            Assert.Equal(documents.Select(d => d.Id).Order(), handled.Keys.Order());
            Assert.Empty(handled.Where(entry => entry.Value != 1).Select(entry => $"{documents.Single(d => d.Id == entry.Key).Pk} x{entry.Value}"));
        }
        finally
        {
            await first.StopAsync();
            await second.StopAsync();
        }
    }
}
