using Encryption.Custom.Migration;
using Encryption.Custom.Tool.Endpoints;
using Encryption.Custom.Keys.Cosmos;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tool.WrappedKeys;

/// <summary>
/// The DEK container on a Cosmos DB endpoint (<see cref="AccountClient"/>), read (never written) with the library's
/// own DEK document reader.
/// </summary>
internal sealed class DekDocumentEndpoint : DekDocumentSource
{
    private readonly CosmosClient? _client;
    private readonly Container _container;

    /// <summary>Reads from the DEK container on <paramref name="endpoint"/>, through a client of its own.</summary>
    public DekDocumentEndpoint(Uri endpoint, string database, string container)
    {
        _client = AccountClient.Create(endpoint);
        _container = _client.GetContainer(database, container);
    }

    /// <summary>Reads from <paramref name="container"/>, whose client the caller owns.</summary>
    public DekDocumentEndpoint(Container container)
    {
        _container = container;
    }

    public override async Task<DataEncryptionKeyProperties> ReadAsync(string dataEncryptionKeyId, CancellationToken cancellationToken)
    {
        try
        {
            // A transient failure (503, 408, a reset) is retried with back-off, as the migration job retries its own.
            (ResponseMessage response, DataEncryptionKeyProperties properties) = await TransientFailures.RetryAsync(
                token => DataEncryptionKeyContainerCore.ReadCoreAsync(_container, dataEncryptionKeyId, requestOptions: null, token),
                TimeProvider.System,
                cancellationToken).ConfigureAwait(false);
            response.Dispose();
            return properties;
        }
        catch (CosmosException exception)
        {
            throw new EncryptionException(
                EncryptionErrorKind.KeyUnavailable,
                $"Reading the DEK document from the DEK container failed ({(int)exception.StatusCode} {exception.StatusCode}).",
                dataEncryptionKeyId,
                innerException: exception);
        }
        catch (Exception exception) when (exception is HttpRequestException or Azure.Identity.AuthenticationFailedException or Azure.Identity.CredentialUnavailableException)
        {
            throw new EncryptionException(
                EncryptionErrorKind.KeyUnavailable,
                $"The DEK container cannot be reached ({exception.GetType().Name}).",
                dataEncryptionKeyId,
                innerException: exception);
        }
    }

    public override ValueTask DisposeAsync()
    {
        _client?.Dispose();
        return ValueTask.CompletedTask;
    }
}
