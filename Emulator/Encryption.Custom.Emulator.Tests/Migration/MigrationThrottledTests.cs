using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// The migration job against a container that enforces its throughput (the bundled endpoint's opt-in 429s with
/// <c>x-ms-retry-after-ms</c>, as an account answers): with no budget of its own the job runs into the container's
/// 400 RU/s, is throttled, and still finishes with every document in the target state, none reported failed. The
/// client does not retry 429s itself, so every one reaches the job (and the change feed processor under it), which
/// must wait out its <c>x-ms-retry-after-ms</c> and send the request again (docs/migration.md, "Budget").
/// </summary>
public sealed class MigrationThrottledTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    // 3 KB of padding: each replace of an encrypted document is charged 4 RU (1 RU per started KB), so the job's
    // rewrites alone ask for about 1,000 RU, two and a half seconds of the container's 400 RU/s.
    private const int Count = 250;
    private const int PaddingCharacters = 3 * 1024;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task ContainerThrottlesTheJob_JobFinishesWithEveryDocumentInTheTargetState()
    {
        using var counter = new ThrottleCounter(fixture.Endpoint.Uri.IsLoopback);
        using CosmosClient client = fixture.Endpoint.CreateClientThrough(
            counter,
            o => o.MaxRetryAttemptsOnRateLimitedRequests = 0); // the job meets every 429 itself, not only those the SDK gave up on
        ContainerResponse created = await fixture.Database.CreateContainerAsync(
            new ContainerProperties("throttled-" + Guid.NewGuid().ToString("N"), "/pk"), ThroughputProperties.CreateManualThroughput(400), cancellationToken: Ct);
        (Container leases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await SeedPaddedAsync(created.Container);
        await ThroughputEnforcement.EnableAsync(fixture.Endpoint, created.Container, Ct);
        Container raw = client.GetContainer(fixture.Database.Id, created.Container.Id);
        var policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, Paths);

        await using var job = new EncryptionMigrationJob(raw, fixture.Encryptor, policy, leases, Options());
        EncryptionMigrationResult result = await RunAsync(job, Ct);

        Assert.True(counter.Throttled > 0, "The container never answered 429: the test did not throttle the job.");
        Assert.True(result.Completed);
        Assert.Empty(result.Failures);
        Assert.Equal(Count, result.Progress.DocumentsRewritten);
        Dictionary<string, JObject> stored = await ReadStoredAsync(raw, Ct);
        Assert.Equal(Count, stored.Count);
        Assert.All(stored.Values, document => Assert.Equal(EncryptionFixture.Dek1, KeyId(document)));
        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(raw, fixture.Encryptor, policy, Ct);
        Assert.Equal((long)Count, status.DocumentsInTargetState);
        TestContext.Current.SendDiagnosticMessage($"{counter.Throttled} answers were 429; the job took {result.Progress.Elapsed.TotalSeconds:F1} s.");
    }

    private static async Task SeedPaddedAsync(Container container)
    {
        string padding = new('x', PaddingCharacters);
        for (int start = 0; start < Count; start += 25)
        {
            await Task.WhenAll(Enumerable.Range(start, Math.Min(25, Count - start)).Select(i =>
            {
                JObject document = Document(i, 0);
                document["pad"] = padding;
                return container.CreateItemAsync(document, PartitionKeyOf(document), cancellationToken: Ct);
            }));
        }
    }
}
