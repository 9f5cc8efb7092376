namespace Encryption.Custom.Emulator.Tests.Infrastructure;

/// <summary>
/// Class fixture: a database with a unique name for one test class, deleted after its last test, so test
/// classes can run in parallel on one endpoint without seeing each other's data. Use it as
/// <c>IClassFixture&lt;CosmosDatabaseFixture&gt;</c> and create containers through it.
/// </summary>
public sealed class CosmosDatabaseFixture(CosmosEndpointFixture endpointFixture) : IAsyncLifetime
{
    /// <summary>Every test database starts with this, so leftovers of an aborted run are easy to find.</summary>
    public const string DatabaseIdPrefix = "ectest-";

    /// <summary>The partition key path of containers created without one.</summary>
    public const string DefaultPartitionKeyPath = "/pk";

    private readonly SemaphoreSlim _sharedContainerLock = new(1, 1);
    private Database? _database;
    private Container? _sharedContainer;

    /// <summary>The endpoint the tests run against.</summary>
    public CosmosEndpoint Endpoint => endpointFixture.Endpoint;

    /// <summary>The client shared by all test classes.</summary>
    public CosmosClient Client => endpointFixture.Client;

    /// <summary>This test class's database.</summary>
    public Database Database => _database ?? throw new InvalidOperationException("The fixture is not initialized.");

    /// <inheritdoc/>
    public async ValueTask InitializeAsync()
    {
        string id = DatabaseIdPrefix + Guid.NewGuid().ToString("N");
        DatabaseResponse response = await Client.CreateDatabaseAsync(id);
        _database = response.Database;
    }

    /// <summary>
    /// Creates a container with a unique id in this class's database, its partition key hashed with version 2, as
    /// new containers should be: the bundled server spreads such a container over several partition key ranges
    /// (<c>EMULATOR_PARTITION_RANGES</c>, Emulator/README.md), so every test runs its queries across partitions,
    /// its change feeds and processor leases per range and its session tokens per range, as on an account whose
    /// container has several physical partitions (and a test can split a range, <see cref="PartitionSplits"/>).
    /// </summary>
    public async Task<Container> CreateContainerAsync(
        string partitionKeyPath = DefaultPartitionKeyPath, CancellationToken cancellationToken = default)
    {
        string id = "c-" + Guid.NewGuid().ToString("N");
        ContainerResponse response = await Database.CreateContainerAsync(
            new ContainerProperties(id, partitionKeyPath) { PartitionKeyDefinitionVersion = PartitionKeyDefinitionVersion.V2 },
            cancellationToken: cancellationToken);
        return response.Container;
    }

    /// <summary>
    /// Creates a container whose partition key is hashed with version 1 (the SDK's default without
    /// <see cref="PartitionKeyDefinitionVersion.V2"/>), which the bundled server keeps in one partition key range:
    /// only for a test that is about a single range and says why.
    /// </summary>
    public async Task<Container> CreateSingleRangeContainerAsync(
        string partitionKeyPath = DefaultPartitionKeyPath, CancellationToken cancellationToken = default)
    {
        string id = "c-" + Guid.NewGuid().ToString("N");
        ContainerResponse response = await Database.CreateContainerAsync(
            new ContainerProperties(id, partitionKeyPath), cancellationToken: cancellationToken);
        return response.Container;
    }

    /// <summary>
    /// One container (partition key <see cref="DefaultPartitionKeyPath"/>) shared by the tests of this class,
    /// for tests that use unique item ids and so need no container of their own.
    /// </summary>
    public async Task<Container> GetSharedContainerAsync(CancellationToken cancellationToken = default)
    {
        await _sharedContainerLock.WaitAsync(cancellationToken);
        try
        {
            return _sharedContainer ??= await CreateContainerAsync(cancellationToken: cancellationToken);
        }
        finally
        {
            _sharedContainerLock.Release();
        }
    }

    /// <inheritdoc/>
    public async ValueTask DisposeAsync()
    {
        _sharedContainerLock.Dispose();
        if (_database is null)
        {
            return;
        }

        try
        {
            await _database.DeleteAsync();
        }
        catch (CosmosException ex) when (ex.StatusCode == HttpStatusCode.NotFound)
        {
            // Already gone (a test deleted it): nothing to clean up.
        }
    }
}
