using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.Endpoints;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tool.Deks;

/// <summary>
/// The DEK container of a DEK command, through the library's own <see cref="DataEncryptionKeyContainer"/> (so the
/// tool writes DEK documents exactly as an application does), with the key-wrap provider the command was given.
/// The container must exist: a misspelt --dek-container is reported by name, never created, unless create-dek is asked
/// to create it (--create-dek-container), which it then does as the library's provider does (partition key /id).
/// </summary>
internal sealed class DekContainerSession : IAsyncDisposable
{
    private readonly CosmosClient _client;
    private readonly EncryptionKeyWrapProvider _keyWrapProvider;
    private readonly CosmosDataEncryptionKeyProvider _keyProvider;

    private DekContainerSession(CosmosClient client, EncryptionKeyWrapProvider keyWrapProvider, CosmosDataEncryptionKeyProvider keyProvider)
    {
        _client = client;
        _keyWrapProvider = keyWrapProvider;
        _keyProvider = keyProvider;
    }

    /// <summary>The library's DEK container operations.</summary>
    public DataEncryptionKeyContainer Keys => _keyProvider.DataEncryptionKeyContainer;

    /// <summary>Connects, checks the database and container exist, and opens the key-wrap provider <paramref name="openKeys"/> gives.</summary>
    /// <exception cref="Errors.ToolException">The database or container does not exist (exit code 1), or a key file is unusable (3).</exception>
    public static async Task<DekContainerSession> OpenAsync(DekArguments arguments, Func<Container, Task<EncryptionKeyWrapProvider>> openKeys, CancellationToken cancellationToken)
    {
        CosmosClient client = AccountClient.Create(arguments.Endpoint);
        EncryptionKeyWrapProvider? keyWrapProvider = null;
        try
        {
            if (arguments.CreateContainer)
            {
                await ResourceCheck.EnsureDatabaseExistsAsync(client, arguments.Database, "--database", cancellationToken).ConfigureAwait(false);
            }
            else
            {
                await ResourceCheck.EnsureExistsAsync(client, arguments.Database, "--database", arguments.Container, "--dek-container", cancellationToken).ConfigureAwait(false);
            }

            Container container = client.GetContainer(arguments.Database, arguments.Container);
            keyWrapProvider = await openKeys(container).ConfigureAwait(false);
            var keyProvider = new CosmosDataEncryptionKeyProvider(keyWrapProvider);
            if (arguments.CreateContainer)
            {
                await InitializeCreatingAsync(keyProvider, client.GetDatabase(arguments.Database), arguments.Container, cancellationToken).ConfigureAwait(false);
            }
            else
            {
                keyProvider.Initialize(container);
            }

            return new DekContainerSession(client, keyWrapProvider, keyProvider);
        }
        catch
        {
            (keyWrapProvider as IDisposable)?.Dispose();
            client.Dispose();
            throw;
        }
    }

    // The library's own creation (CreateContainerIfNotExists with /id, and the check that an existing one is keyed by
    // /id), retried on transient failures like every other request of the tool; a container with another key is a
    // usage error naming it.
    private static async Task InitializeCreatingAsync(CosmosDataEncryptionKeyProvider keyProvider, Database database, string containerId, CancellationToken cancellationToken)
    {
        try
        {
            await Encryption.Custom.Migration.TransientFailures.RetryAsync(token => keyProvider.InitializeAsync(database, containerId, token), TimeProvider.System, cancellationToken).ConfigureAwait(false);
        }
        catch (ArgumentException wrongKey)
        {
            throw Errors.ToolException.Usage(wrongKey.Message.Split(" (Parameter", 2)[0]);
        }
    }

    /// <summary>
    /// Runs a create or rewrap: an <see cref="ArgumentException"/> from the key-wrap provider (the algorithm does not fit
    /// the key, metadata of another provider) becomes <see cref="EncryptionErrorKind.InvalidOptions"/> naming the DEK
    /// (exit code 3), with the provider's message, which names the rule and never key bytes.
    /// </summary>
    public static async Task<T> WrapAsync<T>(string dekId, Func<Task<T>> operation)
    {
        try
        {
            return await operation().ConfigureAwait(false);
        }
        catch (ArgumentException exception)
        {
            throw new EncryptionException(
                EncryptionErrorKind.InvalidOptions,
                $"The key-encryption key cannot be used as asked; nothing was written: {exception.Message.Split(" (Parameter", 2)[0]}",
                dekId,
                innerException: exception);
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _keyProvider.DisposeAsync().ConfigureAwait(false);
        (_keyWrapProvider as IDisposable)?.Dispose();
        _client.Dispose();
    }
}
