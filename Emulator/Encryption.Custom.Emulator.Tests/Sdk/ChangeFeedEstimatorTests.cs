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

    private static async Task<long> EstimatedLagAsync(ChangeFeedEstimator estimator)
    {
        long lag = 0;
        using FeedIterator<ChangeFeedProcessorState> states = estimator.GetCurrentStateIterator();
        while (states.HasMoreResults)
        {
            foreach (ChangeFeedProcessorState state in await states.ReadNextAsync(Ct))
            {
                lag += state.EstimatedLag;
            }
        }

        return lag;
    }

    private static async Task WaitUntilAsync(Func<Task<bool>> done)
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(Ct);
        timeout.CancelAfter(s_wait);
        while (!await done())
        {
            await Task.Delay(100, timeout.Token);
        }
    }

    [Fact]
    public async Task Estimator_CountsWritesAfterTheLastCheckpoint_AndNothingOnceCaughtUp()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        Container leases = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await TestDocument.SeedAsync(container, 3, 2, Ct);
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
            await WaitUntilAsync(async () => received.Count == 3 && await EstimatedLagAsync(estimator) == 0);
        }
        finally
        {
            await processor.StopAsync();
        }

        await TestDocument.SeedAsync(container, 5, 2, Ct);

        Assert.Equal(5, await EstimatedLagAsync(estimator));
    }
}
