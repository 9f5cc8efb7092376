namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// What <see cref="IsolationFirstTests"/> and <see cref="IsolationSecondTests"/> both do, in parallel (separate
/// test classes are separate collections): write the same container id and item ids, each in its own class
/// database, and check that every read sees only its own writes.
/// </summary>
internal static class IsolationScenario
{
    private const int ItemCount = 20;
    private static readonly TaskCompletionSource s_bothStarted = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private static int s_started;

    public static async Task RunAsync(CosmosDatabaseFixture fixture, string marker, CancellationToken cancellationToken)
    {
        // Give the other class a moment to start too so that the writes overlap; isolation is asserted either way.
        if (Interlocked.Increment(ref s_started) == 2)
        {
            s_bothStarted.TrySetResult();
        }

        await Task.WhenAny(s_bothStarted.Task, Task.Delay(TimeSpan.FromSeconds(10), cancellationToken));

        ContainerResponse response = await fixture.Database.CreateContainerIfNotExistsAsync(
            "isolation", CosmosDatabaseFixture.DefaultPartitionKeyPath, cancellationToken: cancellationToken);
        Container container = response.Container;
        for (int i = 0; i < ItemCount; i++)
        {
            var document = new TestDocument($"item-{i}", "p0", marker, i);
            await container.UpsertItemAsync(document, document.PartitionKey, cancellationToken: cancellationToken);
            ItemResponse<TestDocument> read = await container.ReadItemAsync<TestDocument>(
                document.Id, document.PartitionKey, cancellationToken: cancellationToken);
            Assert.Equal(document, read.Resource);
        }

        List<TestDocument> all = await container.GetItemQueryIterator<TestDocument>("SELECT * FROM c").ReadAllAsync(cancellationToken);
        Assert.Equal(ItemCount, all.Count);
        Assert.All(all, document => Assert.Equal(marker, document.Name));
    }
}
