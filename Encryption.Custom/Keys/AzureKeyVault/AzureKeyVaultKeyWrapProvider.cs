using System.Security.Cryptography;
using Azure;
using Azure.Core;
using Azure.Core.Pipeline;

namespace Encryption.Custom.AzureKeyVault;

/// <summary>
/// Wraps and unwraps data encryption keys with an RSA key in Azure Key Vault (<c>wrapkey</c> / <c>unwrapkey</c>,
/// algorithms <c>RSA-OAEP</c> and <c>RSA-OAEP-256</c>), authenticating with the caller's
/// <see cref="TokenCredential"/>. The key never leaves Key Vault; the identity needs the key permissions
/// <c>wrapKey</c> and <c>unwrapKey</c> (role "Key Vault Crypto User"). It also reads and writes the signed
/// envelope of Microsoft's packages (<see cref="SignedEnvelopeMetadataType"/>), which needs <c>get</c> and <c>sign</c> too.
/// </summary>
/// <remarks>
/// Built directly on Azure.Core's <see cref="HttpPipeline"/> (retries, timeouts and transport from the
/// <see cref="AzureKeyVaultKeyWrapProviderOptions"/>). Request and response bodies that carry a raw key are built
/// and parsed in pinned buffers that are zeroed after use and are never logged.
/// </remarks>
public partial class AzureKeyVaultKeyWrapProvider : EncryptionKeyWrapProvider
{
    /// <summary>The metadata <see cref="EncryptionKeyWrapMetadata.Type"/> of keys wrapped directly with <c>wrapkey</c>.</summary>
    public const string MetadataType = "akv";

    /// <summary>
    /// The metadata <see cref="EncryptionKeyWrapMetadata.Type"/> of keys in the signed envelope that Microsoft's
    /// packages (Microsoft Data Encryption, Always Encrypted) write, with <see cref="SignedEnvelopeAlgorithm"/>.
    /// </summary>
    public const string SignedEnvelopeMetadataType = "AZURE_KEY_VAULT";

    /// <summary>The metadata <see cref="EncryptionKeyWrapMetadata.Algorithm"/> of the signed envelope.</summary>
    public const string SignedEnvelopeAlgorithm = "RSA_OAEP";

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

    /// <summary>
    /// Metadata for the signed envelope of Microsoft's packages (<c>AZURE_KEY_VAULT</c>, <c>RSA_OAEP</c>): DEKs
    /// wrapped this way are readable by Microsoft.Azure.Cosmos.Encryption.Custom's Key Vault provider and the
    /// other way round. Needs the key permissions wrapKey, unwrapKey, sign and get.
    /// </summary>
    /// <param name="keyEncryptionKeyName">The name recorded for the key-encryption key (any name you choose).</param>
    /// <param name="keyId">The key identifier, preferably with its version.</param>
    /// <exception cref="ArgumentException">The name is null or empty, or <paramref name="keyId"/> is not a Key Vault key identifier.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="keyId"/> is null.</exception>
    public static EncryptionKeyWrapMetadata CreateSignedEnvelopeMetadata(string keyEncryptionKeyName, Uri keyId)
    {
        ArgumentException.ThrowIfNullOrEmpty(keyEncryptionKeyName);
        ArgumentNullException.ThrowIfNull(keyId);
        KeyVaultKeyIdentifier identifier = KeyVaultKeyIdentifier.TryParse(keyId.OriginalString)
            ?? throw new ArgumentException("Not a Key Vault key identifier (https://{vault}/keys/{name}[/{version}]).", nameof(keyId));
        return new EncryptionKeyWrapMetadata(SignedEnvelopeMetadataType, keyEncryptionKeyName, identifier.KeyUri.AbsoluteUri, SignedEnvelopeAlgorithm);
    }

    /// <inheritdoc/>
    /// <remarks>The returned metadata names the exact key version that wrapped the key.</remarks>
    public override async Task<EncryptionKeyWrapResult> WrapKeyAsync(
        ReadOnlyMemory<byte> key,
        EncryptionKeyWrapMetadata metadata,
        CancellationToken cancellationToken = default)
    {
        (KeyVaultKeyIdentifier keyId, string algorithm, bool signedEnvelope) = Resolve(metadata);
        if (signedEnvelope)
        {
            return await WrapSignedEnvelopeAsync(keyId, key, metadata, cancellationToken).ConfigureAwait(false);
        }

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
        (KeyVaultKeyIdentifier keyId, string algorithm, bool signedEnvelope) = Resolve(metadata);
        byte[] rawKey = signedEnvelope
            ? await UnwrapSignedEnvelopeAsync(keyId, wrappedKey, cancellationToken).ConfigureAwait(false)
            : await UnwrapRawAsync(keyId, algorithm, wrappedKey, cancellationToken).ConfigureAwait(false);
        return new EncryptionKeyUnwrapResult(rawKey, _cacheTimeToLive);
    }

    /// <summary>Key Vault's <c>unwrapkey</c>; the result is a pinned array the caller owns.</summary>
    private async Task<byte[]> UnwrapRawAsync(KeyVaultKeyIdentifier keyId, string algorithm, ReadOnlyMemory<byte> wrappedKey, CancellationToken cancellationToken)
    {
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

        return result.Value;
    }

    private static (KeyVaultKeyIdentifier KeyId, string Algorithm, bool SignedEnvelope) Resolve(EncryptionKeyWrapMetadata metadata)
    {
        ArgumentNullException.ThrowIfNull(metadata);
        bool signedEnvelope = string.Equals(metadata.Type, SignedEnvelopeMetadataType, StringComparison.Ordinal);
        if (!signedEnvelope && !string.Equals(metadata.Type, MetadataType, StringComparison.Ordinal))
        {
            throw new ArgumentException($"The metadata type '{metadata.Type}' is neither '{MetadataType}' nor '{SignedEnvelopeMetadataType}'.", nameof(metadata));
        }

        KeyVaultKeyIdentifier keyId = KeyVaultKeyIdentifier.TryParse(metadata.Value)
            ?? throw new ArgumentException($"The metadata value '{metadata.Value}' is not a Key Vault key identifier (https://{{vault}}/keys/{{name}}[/{{version}}]).", nameof(metadata));
        if (signedEnvelope)
        {
            if (metadata.Algorithm is not (null or SignedEnvelopeAlgorithm))
            {
                throw new ArgumentException($"The signed envelope uses the algorithm '{SignedEnvelopeAlgorithm}', not '{metadata.Algorithm}'.", nameof(metadata));
            }

            return (keyId, KeyWrapAlgorithm.RsaOaep, true);
        }

        string algorithm = metadata.Algorithm ?? KeyWrapAlgorithm.RsaOaep;
        CheckAlgorithm(algorithm, nameof(metadata));
        return (keyId, algorithm, false);
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
}
