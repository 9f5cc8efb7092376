using Azure;
using Azure.Core;
using Encryption.Custom.Keys;

namespace Encryption.Custom.AzureKeyVault;

/// <summary>The REST calls: key operations (<c>POST {keyId}/{operation}</c>) and reading a public key (<c>GET {keyId}</c>).</summary>
public partial class AzureKeyVaultKeyWrapProvider
{
    /// <summary>Runs a key operation (wrapkey, unwrapkey, sign) and parses its <c>{"kid","value"}</c> result.</summary>
    private Task<KeyVaultKeyOperationResult> SendAsync(
        KeyVaultKeyIdentifier keyId,
        string operation,
        KeyVaultKeyOperationBody body,
        bool bufferResponse,
        CancellationToken cancellationToken) =>
        SendCoreAsync(keyId, operation, body, bufferResponse, KeyVaultKeyOperationResult.ReadAsync, cancellationToken);

    /// <summary>Reads the public part of an RSA key (<c>GET {keyId}</c>, key permission <c>get</c>).</summary>
    private Task<KeyVaultPublicKey> GetPublicKeyCoreAsync(KeyVaultKeyIdentifier keyId, CancellationToken cancellationToken) =>
        SendCoreAsync(keyId, operation: null, body: null, bufferResponse: true, KeyVaultPublicKey.ReadAsync, cancellationToken);

    private async Task<T> SendCoreAsync<T>(
        KeyVaultKeyIdentifier keyId,
        string? operation,
        KeyVaultKeyOperationBody? body,
        bool bufferResponse,
        Func<Stream, CancellationToken, Task<T>> read,
        CancellationToken cancellationToken)
    {
        string description = operation ?? "get key";
        using HttpMessage message = _pipeline.CreateMessage();
        message.BufferResponse = bufferResponse;
        Request request = message.Request;
        request.Uri.Reset(keyId.KeyUri);
        if (operation is not null)
        {
            request.Uri.AppendPath("/" + operation, escape: false);
        }

        request.Uri.AppendQuery("api-version", _apiVersion);
        request.Headers.Add(HttpHeader.Names.Accept, "application/json");
        if (body is null)
        {
            request.Method = RequestMethod.Get;
        }
        else
        {
            request.Method = RequestMethod.Post;
            request.Headers.Add(HttpHeader.Common.JsonContentType);
            request.Content = RequestContent.Create(body.Memory);
        }

        try
        {
            await _pipeline.SendAsync(message, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            // Transport failures, timeouts after all retries, a challenge for the wrong resource.
            throw OperationFailed(keyId, description, exception);
        }

        Response response = message.Response;
        if (response.IsError)
        {
            throw OperationFailed(keyId, description, new RequestFailedException(response));
        }

        try
        {
            Stream content = response.ContentStream ?? throw new FormatException("The Key Vault response has no body.");
            return await read(content, cancellationToken).ConfigureAwait(false);
        }
        catch (FormatException exception)
        {
            throw OperationFailed(keyId, description, exception);
        }
    }

    private static EncryptionException OperationFailed(KeyVaultKeyIdentifier keyId, string operation, Exception exception)
    {
        string status = exception switch
        {
            RequestFailedException { Status: > 0 } failed => $"HTTP {failed.Status}{(failed.ErrorCode is null ? string.Empty : " " + failed.ErrorCode)}",

            // Azure.Core's retry policy reports exhausted retries as one AggregateException of every attempt's failure.
            AggregateException { InnerExceptions.Count: > 0 } attempts => $"{attempts.InnerExceptions.Count} attempts, the last: {KeyErrors.Describe(attempts.InnerExceptions[^1])}",
            _ => KeyErrors.Describe(exception),
        };
        return new EncryptionException(
            EncryptionErrorKind.KeyUnavailable,
            $"Key Vault {operation} with the key '{keyId}' failed ({status}).",
            innerException: exception);
    }
}
