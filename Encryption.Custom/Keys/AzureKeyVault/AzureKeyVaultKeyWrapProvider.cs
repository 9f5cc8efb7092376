using System.Security.Cryptography;
using Azure;
using Azure.Core;
using Azure.Core.Pipeline;
using Encryption.Custom.Keys.Wrapping;

namespace Encryption.Custom.Keys.AzureKeyVault;

/// <summary>
/// Wraps and unwraps data encryption keys with an RSA key in Azure Key Vault (<c>wrapkey</c> / <c>unwrapkey</c>,
/// algorithms <c>RSA-OAEP</c> and <c>RSA-OAEP-256</c>), authenticating with the caller's
/// <see cref="TokenCredential"/>. The key never leaves Key Vault; the identity needs the key permissions
/// <c>wrapKey</c> and <c>unwrapKey</c> (role "Key Vault Crypto User").
/// </summary>
/// <remarks>
/// Built directly on Azure.Core's <see cref="HttpPipeline"/> (retries, timeouts and transport from the
/// <see cref="AzureKeyVaultKeyWrapProviderOptions"/>). Request and response bodies that carry a raw key are built
/// and parsed in pinned buffers that are zeroed after use and are never logged.
/// </remarks>
public class AzureKeyVaultKeyWrapProvider : EncryptionKeyWrapProvider
{
    /// <summary>The metadata <see cref="EncryptionKeyWrapMetadata.Type"/> of keys wrapped by this provider.</summary>
    public const string MetadataType = "akv";

    private readonly HttpPipeline _pipeline;
    private readonly string _apiVersion;
    private readonly TimeSpan _cacheTimeToLive;

    /// <summary>Creates a provider that authenticates with <paramref name="credential"/>.</summary>
    /// <param name="credential">The identity (for example <c>DefaultAzureCredential</c> from Azure.Identity).</param>
    /// <param name="options">Options; null for the defaults.</param>
    /// <exception cref="ArgumentNullException"><paramref name="credential"/> is null.</exception>
    /// <exception cref="ArgumentException">Content logging is enabled in <c>options.Diagnostics</c> (it would log key material), or the cache time to live is negative.</exception>
    public AzureKeyVaultKeyWrapProvider(TokenCredential credential, AzureKeyVaultKeyWrapProviderOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(credential);
        options ??= new AzureKeyVaultKeyWrapProviderOptions();
        if (options.Diagnostics.IsLoggingContentEnabled)
        {
            throw new ArgumentException("Content logging would write key material to logs; disable Diagnostics.IsLoggingContentEnabled.", nameof(options));
        }

        if (options.DataEncryptionKeyCacheTimeToLive < TimeSpan.Zero && options.DataEncryptionKeyCacheTimeToLive != Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentException("DataEncryptionKeyCacheTimeToLive must be non-negative or infinite.", nameof(options));
        }

        _apiVersion = options.Version;
        _cacheTimeToLive = options.DataEncryptionKeyCacheTimeToLive;
        _pipeline = HttpPipelineBuilder.Build(
            options,
            perCallPolicies: [],
            perRetryPolicies: [new KeyVaultChallengeAuthenticationPolicy(credential, !options.DisableChallengeResourceVerification)],
            responseClassifier: new ResponseClassifier());
    }

    /// <summary>For mocking.</summary>
    protected AzureKeyVaultKeyWrapProvider()
    {
        _pipeline = null!;
        _apiVersion = string.Empty;
    }

    /// <summary>Metadata naming a Key Vault key and a wrap algorithm.</summary>
    /// <param name="keyId">The key identifier, <c>https://{vault}.vault.azure.net/keys/{name}</c> with or without <c>/{version}</c>. Without a version, the wrap uses the current version and the stored metadata records it.</param>
    /// <param name="algorithm"><see cref="KeyWrapAlgorithm.RsaOaep256"/> (default) or <see cref="KeyWrapAlgorithm.RsaOaep"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="keyId"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="keyId"/> is not a Key Vault key identifier, or the algorithm is not supported.</exception>
    public static EncryptionKeyWrapMetadata CreateMetadata(Uri keyId, string algorithm = KeyWrapAlgorithm.RsaOaep256)
    {
        ArgumentNullException.ThrowIfNull(keyId);
        KeyVaultKeyIdentifier identifier = KeyVaultKeyIdentifier.TryParse(keyId.OriginalString)
            ?? throw new ArgumentException("Not a Key Vault key identifier (https://{vault}/keys/{name}[/{version}]).", nameof(keyId));
        CheckAlgorithm(algorithm, nameof(algorithm));
        return new EncryptionKeyWrapMetadata(MetadataType, identifier.Name, identifier.KeyUri.AbsoluteUri, algorithm);
    }

    /// <inheritdoc/>
    /// <remarks>The returned metadata names the exact key version that wrapped the key.</remarks>
    public override async Task<EncryptionKeyWrapResult> WrapKeyAsync(
        ReadOnlyMemory<byte> key,
        EncryptionKeyWrapMetadata metadata,
        CancellationToken cancellationToken = default)
    {
        (KeyVaultKeyIdentifier keyId, string algorithm) = Resolve(metadata);
        KeyVaultKeyOperationResult result;
        using (KeyVaultKeyOperationBody body = KeyVaultKeyOperationBody.Create(algorithm, key.Span))
        {
            result = await SendAsync(keyId, "wrapkey", body, bufferResponse: true, cancellationToken).ConfigureAwait(false);
        }

        KeyVaultKeyIdentifier answeredBy = CheckAnsweringKey(keyId, result);
        var stored = new EncryptionKeyWrapMetadata(MetadataType, answeredBy.Name, answeredBy.KeyUri.AbsoluteUri, algorithm);
        return new EncryptionKeyWrapResult(result.Value, stored);
    }

    /// <inheritdoc/>
    public override async Task<EncryptionKeyUnwrapResult> UnwrapKeyAsync(
        ReadOnlyMemory<byte> wrappedKey,
        EncryptionKeyWrapMetadata metadata,
        CancellationToken cancellationToken = default)
    {
        (KeyVaultKeyIdentifier keyId, string algorithm) = Resolve(metadata);
        KeyVaultKeyOperationResult result;
        using (KeyVaultKeyOperationBody body = KeyVaultKeyOperationBody.Create(algorithm, wrappedKey.Span))
        {
            // Unbuffered: the raw key in the response goes only into our pinned buffer, not Azure.Core's.
            result = await SendAsync(keyId, "unwrapkey", body, bufferResponse: false, cancellationToken).ConfigureAwait(false);
        }

        try
        {
            CheckAnsweringKey(keyId, result);
        }
        catch
        {
            CryptographicOperations.ZeroMemory(result.Value);
            throw;
        }

        return new EncryptionKeyUnwrapResult(result.Value, _cacheTimeToLive);
    }

    private static (KeyVaultKeyIdentifier KeyId, string Algorithm) Resolve(EncryptionKeyWrapMetadata metadata)
    {
        ArgumentNullException.ThrowIfNull(metadata);
        if (!string.Equals(metadata.Type, MetadataType, StringComparison.Ordinal))
        {
            throw new ArgumentException($"The metadata type '{metadata.Type}' is not '{MetadataType}'.", nameof(metadata));
        }

        KeyVaultKeyIdentifier keyId = KeyVaultKeyIdentifier.TryParse(metadata.Value)
            ?? throw new ArgumentException($"The metadata value '{metadata.Value}' is not a Key Vault key identifier (https://{{vault}}/keys/{{name}}[/{{version}}]).", nameof(metadata));
        string algorithm = metadata.Algorithm ?? KeyWrapAlgorithm.RsaOaep;
        CheckAlgorithm(algorithm, nameof(metadata));
        return (keyId, algorithm);
    }

    private static void CheckAlgorithm(string algorithm, string parameterName)
    {
        if (algorithm is not (KeyWrapAlgorithm.RsaOaep or KeyWrapAlgorithm.RsaOaep256))
        {
            throw new ArgumentException($"The wrap algorithm '{algorithm}' is not supported with Key Vault (use {KeyWrapAlgorithm.RsaOaep256} or {KeyWrapAlgorithm.RsaOaep}).", parameterName);
        }
    }

    private static KeyVaultKeyIdentifier CheckAnsweringKey(KeyVaultKeyIdentifier requested, KeyVaultKeyOperationResult result)
    {
        // Key Vault names the exact version that answered; anything but the requested key is not trustworthy.
        KeyVaultKeyIdentifier? answered = KeyVaultKeyIdentifier.TryParse(result.KeyId);
        if (answered is null || !requested.IsSameKey(answered) || (requested.Version is not null && !string.Equals(requested.Version, answered.Version, StringComparison.OrdinalIgnoreCase)))
        {
            throw new EncryptionException(
                EncryptionErrorKind.KeyUnavailable,
                $"Key Vault answered for the key '{result.KeyId}' instead of '{requested}'.");
        }

        return answered;
    }

    private async Task<KeyVaultKeyOperationResult> SendAsync(
        KeyVaultKeyIdentifier keyId,
        string operation,
        KeyVaultKeyOperationBody body,
        bool bufferResponse,
        CancellationToken cancellationToken)
    {
        using HttpMessage message = _pipeline.CreateMessage();
        message.BufferResponse = bufferResponse;
        Request request = message.Request;
        request.Method = RequestMethod.Post;
        request.Uri.Reset(keyId.KeyUri);
        request.Uri.AppendPath("/" + operation, escape: false);
        request.Uri.AppendQuery("api-version", _apiVersion);
        request.Headers.Add(HttpHeader.Common.JsonContentType);
        request.Headers.Add(HttpHeader.Names.Accept, "application/json");
        request.Content = RequestContent.Create(body.Memory);
        try
        {
            await _pipeline.SendAsync(message, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            // Transport failures, timeouts after all retries, a challenge for the wrong resource.
            throw OperationFailed(keyId, operation, exception);
        }

        Response response = message.Response;
        if (response.IsError)
        {
            var failure = new RequestFailedException(response);
            throw OperationFailed(keyId, operation, failure);
        }

        try
        {
            Stream content = response.ContentStream ?? throw new FormatException("The Key Vault response has no body.");
            return await KeyVaultKeyOperationResult.ReadAsync(content, cancellationToken).ConfigureAwait(false);
        }
        catch (FormatException exception)
        {
            throw OperationFailed(keyId, operation, exception);
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
