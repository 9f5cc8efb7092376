using System.Collections.Concurrent;

namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// A lease container without a partition key (created by an older client; SDK v3 cannot create one): Cosmos DB
/// presents it with its system partition key <c>/_partitionKey</c>, and the change feed processor writes its
/// leases there with <see cref="PartitionKey.None"/>, which on such a container is the empty key.
/// </summary>
public sealed class NonPartitionedLeaseContainerTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(60);

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task ChangeFeedProcessor_WithANonPartitionedLeaseContainer_WritesLeasesAndDeliversEveryChange()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        Container leases = await NonPartitionedContainers.CreateAsync(fixture.Endpoint, fixture.Database, "leases-" + Guid.NewGuid().ToString("N"), Ct);
        var handled = new ConcurrentDictionary<string, int>();
        ChangeFeedProcessor processor = container.GetChangeFeedProcessorBuilder<TestDocument>("non-partitioned-leases", (changes, _) =>
            {
                foreach (TestDocument change in changes)
                {
                    handled.AddOrUpdate(change.Id, 1, (_, n) => n + 1);
                }

                return Task.CompletedTask;
            })
            .WithInstanceName("only")
            .WithLeaseContainer(leases)
            .WithStartTime(DateTime.MinValue.ToUniversalTime())
            .WithPollInterval(TimeSpan.FromMilliseconds(200))
            .Build();
        List<TestDocument> written = Enumerable.Range(0, 12).Select(i => TestDocument.Create(pk: $"p{i}")).ToList();
        foreach (TestDocument document in written)
        {
            await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
        }

        await processor.StartAsync();
        try
        {
            using var timeout = CancellationTokenSource.CreateLinkedTokenSource(Ct);
            timeout.CancelAfter(s_wait);
            while (!written.All(d => handled.ContainsKey(d.Id)))
            {
                await Task.Delay(100, timeout.Token);
            }
        }
        finally
        {
            await processor.StopAsync();
        }

        ContainerProperties leaseDefinition = (await leases.ReadContainerAsync(cancellationToken: Ct)).Resource;
        List<dynamic> leaseDocuments = await leases.GetItemQueryIterator<dynamic>(
            "SELECT * FROM c", requestOptions: new QueryRequestOptions { PartitionKey = PartitionKey.None }).ReadAllAsync(Ct);
        Assert.Equal("/_partitionKey", leaseDefinition.PartitionKeyPath);
        Assert.NotEmpty(leaseDocuments);
        Assert.All(written, d => Assert.True(handled.ContainsKey(d.Id)));
    }

    [Fact]
    public async Task NonPartitionedContainer_PointOperationsWithPartitionKeyNone_Succeed()
    {
        Container container = await NonPartitionedContainers.CreateAsync(fixture.Endpoint, fixture.Database, "np-" + Guid.NewGuid().ToString("N"), Ct);
        var document = new { id = Guid.NewGuid().ToString("N"), value = 1 };

        ItemResponse<dynamic> created = await container.CreateItemAsync<dynamic>(document, PartitionKey.None, cancellationToken: Ct);
        ItemResponse<dynamic> upserted = await container.UpsertItemAsync<dynamic>(new { document.id, value = 2 }, PartitionKey.None, cancellationToken: Ct);
        ItemResponse<dynamic> read = await container.ReadItemAsync<dynamic>(document.id, PartitionKey.None, cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        Assert.Equal(HttpStatusCode.OK, upserted.StatusCode);
        Assert.Equal(2, (int)read.Resource.value);
    }
}
