using System.Collections.Concurrent;

namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// <see cref="Container.GetChangeFeedEstimator"/>: the remaining lag of a processor, which the SDK computes from the
/// change feed (the session token's LSN minus the LSN before the first unread change).
/// </summary>
public sealed class ChangeFeedEstimatorTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private const string ProcessorName = "estimated";
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(60);

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static async Task<long> EstimatedLagAsync(ChangeFeedEstimator estimator) =>
        (await StatesAsync(estimator)).Sum(state => state.EstimatedLag);

    private static async Task<List<ChangeFeedProcessorState>> StatesAsync(ChangeFeedEstimator estimator)
    {
        var all = new List<ChangeFeedProcessorState>();
        using FeedIterator<ChangeFeedProcessorState> states = estimator.GetCurrentStateIterator();
        while (states.HasMoreResults)
        {
            all.AddRange(await states.ReadNextAsync(Ct));
        }

        return all;
    }

    // Writes documents under new partition keys until every partition key range holds one; returns how many.
    private static async Task<int> SeedEveryRangeAsync(Container container)
    {
        int ranges = (await container.GetFeedRangesAsync(Ct)).Count;
        var written = new HashSet<string>(StringComparer.Ordinal);
        int count = 0;
        while (written.Count < ranges)
        {
            Assert.True(count < 200, $"{count} partition keys reached {written.Count} of {ranges} ranges.");
            TestDocument document = TestDocument.Create($"p{count++}");
            ItemResponse<TestDocument> created = await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
            written.Add(SessionTokens.Parse(created.Headers.Session).RangeId);
        }

        return count;
    }

    // Polls until done; past the wait, fails saying what was seen last.
    private static async Task WaitUntilAsync(Func<Task<bool>> done, Func<Task<string>> describe)
    {
        DateTime deadline = DateTime.UtcNow + s_wait;
        while (!await done())
        {
            Assert.True(DateTime.UtcNow < deadline, $"Not reached within {s_wait}: {await describe()}");
            await Task.Delay(100, Ct);
        }
    }

    private static async Task<string> DescribeAsync(ChangeFeedEstimator estimator, int received) =>
        $"{received} changes received; estimated lag per lease: " +
        string.Join(", ", (await StatesAsync(estimator)).Select(s => $"{s.LeaseToken}: {s.EstimatedLag}"));

    [Fact]
    public async Task Estimator_CountsWritesAfterTheLastCheckpoint_AndNothingOnceCaughtUp()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        Container leases = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        // A write in every partition key range: the SDK (3.64) estimates a lease that was never checkpointed at 1
        // without reading its range, and the processor checkpoints only after handing changes over, so the lease
        // of a range that never had a change would keep the lag at 1 (as on Cosmos DB; the endpoint is not asked).
        int seeded = await SeedEveryRangeAsync(container);
        ChangeFeedEstimator estimator = container.GetChangeFeedEstimator(ProcessorName, leases);
        var received = new ConcurrentDictionary<string, bool>();
        ChangeFeedProcessor processor = container
            .GetChangeFeedProcessorBuilder<TestDocument>(ProcessorName, (changes, _) =>
            {
                foreach (TestDocument change in changes)
                {
                    received[change.Id] = true;
                }

                return Task.CompletedTask;
            })
            .WithInstanceName("test")
            .WithLeaseContainer(leases)
            .WithStartTime(DateTime.MinValue.ToUniversalTime())
            .WithPollInterval(TimeSpan.FromMilliseconds(200))
            .Build();

        await processor.StartAsync();
        try
        {
            // Caught up once every change was handed over and checkpointed.
            await WaitUntilAsync(
                async () => received.Count == seeded && await EstimatedLagAsync(estimator) == 0,
                () => DescribeAsync(estimator, received.Count));
        }
        finally
        {
            await processor.StopAsync();
        }

        await TestDocument.SeedAsync(container, 5, 2, Ct);

        Assert.Equal(5, await EstimatedLagAsync(estimator));
    }
}
