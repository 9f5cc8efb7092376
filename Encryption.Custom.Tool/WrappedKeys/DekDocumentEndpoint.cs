using Azure.Identity;
using Encryption.Custom.Keys.Cosmos;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tool.WrappedKeys;

/// <summary>
/// The DEK container on a Cosmos DB endpoint, read (never written) with the library's own DEK document reader.
/// The account key comes from <c>COSMOS_KEY</c> (never from the command line, which ends up in shell history and
/// process listings), or else the tool authenticates with <see cref="DefaultAzureCredential"/>.
/// </summary>
internal sealed class DekDocumentEndpoint : DekDocumentSource
{
    /// <summary>The environment variable holding the account key.</summary>
    public const string AccountKeyVariable = "COSMOS_KEY";

    private readonly CosmosClient _client;
    private readonly Container _container;

    public DekDocumentEndpoint(Uri endpoint, string database, string container)
    {
        var options = new CosmosClientOptions
        {
            ConnectionMode = ConnectionMode.Gateway,
            LimitToEndpoint = true,
        };

        // A loopback endpoint is a local emulator with a self-signed certificate (Microsoft's, or the bundled one):
        // nothing on another host can answer there. Any other host must present a trusted certificate.
        if (endpoint.IsLoopback)
        {
            options.ServerCertificateCustomValidationCallback = static (_, _, _) => true;
        }

        string? accountKey = Environment.GetEnvironmentVariable(AccountKeyVariable);
        _client = string.IsNullOrEmpty(accountKey)
            ? new CosmosClient(endpoint.AbsoluteUri, new DefaultAzureCredential(), options)
            : new CosmosClient(endpoint.AbsoluteUri, accountKey, options);
        _container = _client.GetContainer(database, container);
    }

    public override async Task<DataEncryptionKeyProperties> ReadAsync(string dataEncryptionKeyId, CancellationToken cancellationToken)
    {
        try
        {
            (ResponseMessage response, DataEncryptionKeyProperties properties) =
                await DataEncryptionKeyContainerCore.ReadCoreAsync(_container, dataEncryptionKeyId, requestOptions: null, cancellationToken).ConfigureAwait(false);
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
        _client.Dispose();
        return ValueTask.CompletedTask;
    }
}
