namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// A container with 400 RU/s answers 429 (substatus 3200, with <c>x-ms-retry-after-ms</c>) once a second's request
/// units are spent. The SDK retries those by itself and the writes succeed; with retries set to 0 it reports the
/// 429. The bundled server enforces throughput only when asked (Emulator/README.md): this test turns it on for its
/// own container through the test-only route; an account throttles a burst of 10 KB writes anyway.
/// </summary>
public sealed class ThroughputEnforcementTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private const int RuBudgetExceeded = 3200;
    private const int Burst = 60;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private sealed record PaddedDocument(string id, string pk, string pad);

    private static PaddedDocument Padded(string pk) => new(Guid.NewGuid().ToString("N"), pk, new string('x', 10 * 1024));

    [Fact]
    public async Task BurstOverTheBudget_IsThrottled_TheSdkRetriesThrough429s_AndWithoutRetriesReportsThe429()
    {
        ContainerResponse created = await fixture.Database.CreateContainerAsync(
            new ContainerProperties("c-" + Guid.NewGuid().ToString("N"), "/pk"), ThroughputProperties.CreateManualThroughput(400), cancellationToken: Ct);
        await ThroughputEnforcement.EnableAsync(fixture.Endpoint, created.Container, Ct);
        using var counter = new ThrottleCounter(fixture.Endpoint.Uri.IsLoopback);
        using CosmosClient retrying = fixture.Endpoint.CreateClientThrough(counter);
        using CosmosClient noRetries = fixture.Endpoint.CreateClient(o => o.MaxRetryAttemptsOnRateLimitedRequests = 0);
        Container container = retrying.GetContainer(created.Container.Database.Id, created.Container.Id);

        ItemResponse<PaddedDocument>[] written = await Task.WhenAll(Enumerable.Range(0, Burst)
            .Select(i => container.CreateItemAsync(Padded($"p{i % 7}"), new PartitionKey($"p{i % 7}"), cancellationToken: Ct)));
        CosmosException? refused = null;
        Container unretried = noRetries.GetContainer(created.Container.Database.Id, created.Container.Id);
        for (int i = 0; i < Burst && refused is null; i++)
        {
            try
            {
                await unretried.CreateItemAsync(Padded("q"), new PartitionKey("q"), cancellationToken: Ct);
            }
            catch (CosmosException ex) when (ex.StatusCode == HttpStatusCode.TooManyRequests)
            {
                refused = ex;
            }
        }

        int count = (await container.GetItemQueryIterator<int>("SELECT VALUE COUNT(1) FROM c WHERE STARTSWITH(c.pk, 'p')").ReadAllAsync(Ct)).Sum();
        Assert.All(written, w => Assert.Equal(HttpStatusCode.Created, w.StatusCode));
        Assert.Equal(Burst, count);
        Assert.True(counter.Throttled > 0, "The burst of writes was never throttled.");
        Assert.NotNull(refused);
        Assert.Equal(RuBudgetExceeded, refused.SubStatusCode);
        Assert.NotNull(refused.RetryAfter);
    }
}
