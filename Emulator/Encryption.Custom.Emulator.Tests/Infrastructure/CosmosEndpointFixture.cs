namespace Encryption.Custom.Emulator.Tests.Infrastructure;

/// <summary>
/// Assembly fixture: the endpoint from the environment and one ready <see cref="CosmosClient"/> for it,
/// shared by every test class (clients are expensive and thread-safe). Initialization fails every test with
/// a clear message when no endpoint is configured or it does not answer.
/// </summary>
public sealed class CosmosEndpointFixture : IAsyncLifetime
{
    private CosmosClient? _client;

    /// <summary>The endpoint the tests run against.</summary>
    public CosmosEndpoint Endpoint { get; } = CosmosEndpoint.FromEnvironment();

    /// <summary>The shared client (Gateway mode, see <see cref="CosmosEndpoint.CreateClientOptions"/>).</summary>
    public CosmosClient Client => _client ?? throw new InvalidOperationException("The fixture is not initialized.");

    /// <inheritdoc/>
    public async ValueTask InitializeAsync()
    {
        _client = Endpoint.CreateClient();
        // Fail fast (once, with the endpoint named) rather than in every test.
        try
        {
            await _client.ReadAccountAsync();
        }
        catch (Exception ex) when (ex is CosmosException or HttpRequestException)
        {
            throw new InvalidOperationException($"The Cosmos DB endpoint {Endpoint} does not answer: {ex.Message}", ex);
        }
    }

    /// <inheritdoc/>
    public ValueTask DisposeAsync()
    {
        _client?.Dispose();
        return ValueTask.CompletedTask;
    }
}
