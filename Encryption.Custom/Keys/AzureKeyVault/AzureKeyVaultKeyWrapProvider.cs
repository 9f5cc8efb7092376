using System.Security.Cryptography;
using Azure.Core;
using Azure.Core.Pipeline;

namespace Encryption.Custom.AzureKeyVault;

/// <summary>
/// Wraps and unwraps data encryption keys with an RSA key in Azure Key Vault (<c>wrapkey</c> / <c>unwrapkey</c>,
/// algorithms <c>RSA-OAEP</c> and <c>RSA-OAEP-256</c>), authenticating with the caller's
/// <see cref="TokenCredential"/>. The key never leaves Key Vault; the identity needs the key permissions
/// <c>wrapKey</c> and <c>unwrapKey</c> (role "Key Vault Crypto User"). It also reads and writes the signed
/// envelope of Microsoft's packages (<see cref="SignedEnvelopeMetadataType"/>, and the <c>custom</c> metadata
/// Microsoft.Azure.Cosmos.Encryption.Custom stores), which needs <c>get</c> and <c>sign</c> too.
/// </summary>
/// <remarks>
/// Built directly on Azure.Core's <see cref="HttpPipeline"/> (retries, timeouts and transport from the
/// <see cref="AzureKeyVaultKeyWrapProviderOptions"/>). Request and response bodies that carry a raw key are built
/// and parsed in pinned buffers that are zeroed after use and are never logged. Every operation runs against one
/// key version: the versioned identifier Key Vault returns for the first call is used for the later calls and
/// is what the returned metadata records, so a key rotation in between changes nothing.
/// </remarks>
public partial class AzureKeyVaultKeyWrapProvider : EncryptionKeyWrapProvider
{
    /// <summary>The metadata <see cref="EncryptionKeyWrapMetadata.Type"/> of keys wrapped directly with <c>wrapkey</c>.</summary>
    public const string MetadataType = "akv";

    /// <summary>
    /// The metadata <see cref="EncryptionKeyWrapMetadata.Type"/> this provider writes for keys in the signed
    /// envelope of Microsoft's packages, with <see cref="SignedEnvelopeAlgorithm"/>. Microsoft's package ignores
    /// type and algorithm when it unwraps, so it reads these; it writes <see cref="EncryptionKeyWrapMetadata.CustomType"/>
    /// itself, which this provider reads as the same envelope.
    /// </summary>
    public const string SignedEnvelopeMetadataType = "AZURE_KEY_VAULT";

    /// <summary>The metadata <see cref="EncryptionKeyWrapMetadata.Algorithm"/> this provider writes for the signed envelope.</summary>
    public const string SignedEnvelopeAlgorithm = "RSA_OAEP";

    private readonly HttpPipeline _pipeline;
    private readonly KeyVaultChallengeAuthenticationPolicy _authentication;
    private readonly KeyVaultKeyAllowList _allowList;
    private readonly string _apiVersion;
    private readonly TimeSpan _cacheTimeToLive;

    /// <summary>Creates a provider that authenticates with <paramref name="credential"/>.</summary>
    /// <param name="credential">The identity (for example <c>DefaultAzureCredential</c> from Azure.Identity).</param>
    /// <param name="options">Options; null for the defaults.</param>
    /// <exception cref="ArgumentNullException"><paramref name="credential"/> is null.</exception>
    /// <exception cref="ArgumentException">Content logging is enabled in <c>options.Diagnostics</c> (it would log key material), the cache time to live is negative, or an allow-list entry is not a vault URI or key identifier.</exception>
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

        _allowList = KeyVaultKeyAllowList.Create(options, nameof(options));
        _apiVersion = options.Version;
        _cacheTimeToLive = options.DataEncryptionKeyCacheTimeToLive;
        _authentication = new KeyVaultChallengeAuthenticationPolicy(credential, !options.DisableChallengeResourceVerification);
        _pipeline = HttpPipelineBuilder.Build(
            options,
            perCallPolicies: [],
            perRetryPolicies: [_authentication],
            responseClassifier: new ResponseClassifier());
    }

    /// <summary>For mocking.</summary>
    protected AzureKeyVaultKeyWrapProvider()
    {
        _pipeline = null!;
        _authentication = null!;
        _allowList = null!;
        _apiVersion = string.Empty;
    }

    /// <summary>
    /// Metadata naming a Key Vault key and a wrap algorithm, for a provider with default options: the key must be on
    /// a Key Vault or Managed HSM host of the public or sovereign clouds, as such a provider would refuse any other
    /// when wrapping. For a provider whose options allow other hosts or list keys, use the overload that takes them.
    /// </summary>
    /// <param name="keyId">The key identifier, <c>https://{vault}.vault.azure.net/keys/{name}</c> with or without <c>/{version}</c>. Without a version, the wrap uses the current version and the stored metadata records it.</param>
    /// <param name="algorithm"><see cref="KeyWrapAlgorithm.RsaOaep256"/> (default) or <see cref="KeyWrapAlgorithm.RsaOaep"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="keyId"/> is null.</exception>
    /// <exception cref="ArgumentException">
    /// <paramref name="keyId"/> is not a Key Vault key identifier or not on a Key Vault or Managed HSM host, or the
    /// algorithm is not supported.
    /// </exception>
    public static EncryptionKeyWrapMetadata CreateMetadata(Uri keyId, string algorithm = KeyWrapAlgorithm.RsaOaep256) =>
        CreateMetadata(keyId, KeyVaultKeyAllowList.Default, algorithm);

    /// <summary>
    /// Metadata naming a Key Vault key and a wrap algorithm, checked by the rule of <paramref name="options"/>
    /// (<see cref="AzureKeyVaultKeyWrapProviderOptions.AllowedVaults"/>, <see cref="AzureKeyVaultKeyWrapProviderOptions.AllowedKeys"/>,
    /// <see cref="AzureKeyVaultKeyWrapProviderOptions.AllowAnyVaultHost"/>): a key a provider created with them would
    /// refuse is refused here, before a DEK is created with it.
    /// </summary>
    /// <param name="keyId">The key identifier, with or without a version.</param>
    /// <param name="options">The options of the provider that will wrap and unwrap with the key.</param>
    /// <param name="algorithm"><see cref="KeyWrapAlgorithm.RsaOaep256"/> (default) or <see cref="KeyWrapAlgorithm.RsaOaep"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="keyId"/> or <paramref name="options"/> is null.</exception>
    /// <exception cref="ArgumentException">
    /// <paramref name="keyId"/> is not a Key Vault key identifier or not allowed by the options, an option's entry is
    /// invalid, or the algorithm is not supported.
    /// </exception>
    public static EncryptionKeyWrapMetadata CreateMetadata(Uri keyId, AzureKeyVaultKeyWrapProviderOptions options, string algorithm = KeyWrapAlgorithm.RsaOaep256)
    {
        ArgumentNullException.ThrowIfNull(options);
        return CreateMetadata(keyId, KeyVaultKeyAllowList.Create(options, nameof(options)), algorithm);
    }

    private static EncryptionKeyWrapMetadata CreateMetadata(Uri keyId, KeyVaultKeyAllowList rule, string algorithm)
    {
        KeyVaultKeyIdentifier identifier = CheckedKeyId(keyId, rule);
        CheckAlgorithm(algorithm, nameof(algorithm));
        return new EncryptionKeyWrapMetadata(MetadataType, identifier.Name, identifier.KeyUri.AbsoluteUri, algorithm);
    }

    // A key a provider would refuse is refused when its metadata is made, with the provider's own reason.
    private static KeyVaultKeyIdentifier CheckedKeyId(Uri keyId, KeyVaultKeyAllowList rule)
    {
        ArgumentNullException.ThrowIfNull(keyId);
        KeyVaultKeyIdentifier identifier = KeyVaultKeyIdentifier.TryParse(keyId.OriginalString)
            ?? throw new ArgumentException("Not a Key Vault key identifier (https://{vault}/keys/{name}[/{version}], without user information, query or fragment).", nameof(keyId));
        if (rule.Refusal(identifier) is { } refusal)
        {
            throw new ArgumentException(refusal + " Create the metadata with the options of the provider that allows it.", nameof(keyId));
        }

        return identifier;
    }

    /// <summary>
    /// Metadata for the signed envelope of Microsoft's packages (<c>AZURE_KEY_VAULT</c>, <c>RSA_OAEP</c>): DEKs
    /// wrapped this way are readable by Microsoft.Azure.Cosmos.Encryption.Custom (which ignores type and algorithm
    /// when it unwraps) and the other way round. Needs the key permissions wrapKey, unwrapKey, sign and get.
    /// As <see cref="CreateMetadata(Uri, string)"/>, the key must be on a Key Vault or Managed HSM host; for a provider
    /// whose options allow others, use the overload that takes them.
    /// </summary>
    /// <param name="keyEncryptionKeyName">The name recorded for the key-encryption key (any name you choose; Microsoft's package needs one).</param>
    /// <param name="keyId">The key identifier. Without a version, the wrap uses the current version and the stored metadata records it.</param>
    /// <exception cref="ArgumentException">The name is null, empty or white space, or <paramref name="keyId"/> is not a Key Vault key identifier or not on a Key Vault or Managed HSM host.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="keyId"/> is null.</exception>
    public static EncryptionKeyWrapMetadata CreateSignedEnvelopeMetadata(string keyEncryptionKeyName, Uri keyId) =>
        CreateSignedEnvelopeMetadata(keyEncryptionKeyName, keyId, KeyVaultKeyAllowList.Default);

    /// <summary>Metadata for the signed envelope, checked by the rule of <paramref name="options"/> (see <see cref="CreateMetadata(Uri, AzureKeyVaultKeyWrapProviderOptions, string)"/>).</summary>
    /// <param name="keyEncryptionKeyName">The name recorded for the key-encryption key.</param>
    /// <param name="keyId">The key identifier, with or without a version.</param>
    /// <param name="options">The options of the provider that will wrap and unwrap with the key.</param>
    /// <exception cref="ArgumentException">The name is null, empty or white space, <paramref name="keyId"/> is not a Key Vault key identifier or not allowed by the options, or an option's entry is invalid.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="keyId"/> or <paramref name="options"/> is null.</exception>
    public static EncryptionKeyWrapMetadata CreateSignedEnvelopeMetadata(string keyEncryptionKeyName, Uri keyId, AzureKeyVaultKeyWrapProviderOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return CreateSignedEnvelopeMetadata(keyEncryptionKeyName, keyId, KeyVaultKeyAllowList.Create(options, nameof(options)));
    }

    private static EncryptionKeyWrapMetadata CreateSignedEnvelopeMetadata(string keyEncryptionKeyName, Uri keyId, KeyVaultKeyAllowList rule)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(keyEncryptionKeyName);
        KeyVaultKeyIdentifier identifier = CheckedKeyId(keyId, rule);
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
            // Microsoft's package cannot unwrap without a key-encryption key name.
            if (string.IsNullOrWhiteSpace(metadata.Name))
            {
                throw new ArgumentException("Metadata for the signed envelope needs a key-encryption key name that is not empty or white space.", nameof(metadata));
            }

            return await WrapSignedEnvelopeAsync(keyId, key, metadata, cancellationToken).ConfigureAwait(false);
        }

        KeyVaultKeyOperationResult result;
        using (KeyVaultKeyOperationBody body = KeyVaultKeyOperationBody.Create(algorithm, key.Span))
        {
            result = await SendAsync(keyId, "wrapkey", body, bufferResponse: true, cancellationToken).ConfigureAwait(false);
        }

        KeyVaultKeyIdentifier wrappedBy = CheckAnsweringKey(keyId, result.KeyId);
        var stored = new EncryptionKeyWrapMetadata(MetadataType, wrappedBy.Name, wrappedBy.KeyUri.AbsoluteUri, algorithm);
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
            CheckAnsweringKey(keyId, result.KeyId);
        }
        catch
        {
            CryptographicOperations.ZeroMemory(result.Value);
            throw;
        }

        return result.Value;
    }

    /// <summary>
    /// The key, algorithm and envelope kind the metadata names. <c>akv</c>: a raw RSA-OAEP(-256) wrap.
    /// <c>AZURE_KEY_VAULT</c> (ours) and <c>custom</c> (what Microsoft's package stores, with no algorithm):
    /// the signed envelope, whose algorithm is RSA-OAEP however it is spelled.
    /// </summary>
    private (KeyVaultKeyIdentifier KeyId, string Algorithm, bool SignedEnvelope) Resolve(EncryptionKeyWrapMetadata metadata)
    {
        ArgumentNullException.ThrowIfNull(metadata);
        bool signedEnvelope = metadata.Type is SignedEnvelopeMetadataType or EncryptionKeyWrapMetadata.CustomType;
        if (!signedEnvelope && !string.Equals(metadata.Type, MetadataType, StringComparison.Ordinal))
        {
            throw new ArgumentException($"The metadata type '{metadata.Type}' is not one of '{MetadataType}', '{SignedEnvelopeMetadataType}' or '{EncryptionKeyWrapMetadata.CustomType}'.", nameof(metadata));
        }

        KeyVaultKeyIdentifier keyId = KeyVaultKeyIdentifier.TryParse(metadata.Value)
            ?? throw new ArgumentException($"The metadata value {Printable(metadata.Value)} is not a Key Vault key identifier (https://{{vault}}/keys/{{name}}[/{{version}}], without user information, query or fragment).", nameof(metadata));
        string algorithm;
        if (signedEnvelope)
        {
            // SqlClient and Microsoft Data Encryption spell it RSA_OAEP; Azure's key-wrap algorithm names spell it RSA-OAEP.
            if (metadata.Algorithm is not null
                && !string.Equals(metadata.Algorithm, SignedEnvelopeAlgorithm, StringComparison.OrdinalIgnoreCase)
                && !string.Equals(metadata.Algorithm, KeyWrapAlgorithm.RsaOaep, StringComparison.OrdinalIgnoreCase))
            {
                throw new ArgumentException($"The signed envelope uses the algorithm '{SignedEnvelopeAlgorithm}' ('{KeyWrapAlgorithm.RsaOaep}'), not '{metadata.Algorithm}'.", nameof(metadata));
            }

            algorithm = KeyWrapAlgorithm.RsaOaep;
        }
        else
        {
            algorithm = metadata.Algorithm ?? KeyWrapAlgorithm.RsaOaep;
            CheckAlgorithm(algorithm, nameof(metadata));
        }

        if (_allowList.Refusal(keyId) is { } refusal)
        {
            throw new EncryptionException(EncryptionErrorKind.KeyUnavailable, refusal);
        }

        return (keyId, algorithm, signedEnvelope);
    }

    // A value with a user information part may carry a password: it is refused without being quoted.
    private static string Printable(string? value) =>
        value is not null && value.Contains('@', StringComparison.Ordinal) ? "(not printed: it holds a user information part)" : $"'{value}'";

    private static void CheckAlgorithm(string algorithm, string parameterName)
    {
        if (algorithm is not (KeyWrapAlgorithm.RsaOaep or KeyWrapAlgorithm.RsaOaep256))
        {
            throw new ArgumentException($"The wrap algorithm '{algorithm}' is not supported with Key Vault (use {KeyWrapAlgorithm.RsaOaep256} or {KeyWrapAlgorithm.RsaOaep}).", parameterName);
        }
    }

    /// <summary>
    /// Checks that Key Vault answered with the requested key (<see cref="KeyVaultKeyIdentifier.IsAnsweredBy"/>) and
    /// returns the requested identifier with the version that answered: later calls and the stored metadata use
    /// it, on the host the caller named (which may be a private endpoint's alias of the host in the answer).
    /// </summary>
    private KeyVaultKeyIdentifier CheckAnsweringKey(KeyVaultKeyIdentifier requested, string? answeredKeyId)
    {
        KeyVaultKeyIdentifier? answered = KeyVaultKeyIdentifier.TryParse(answeredKeyId);
        if (answered is null || !requested.IsAnsweredBy(answered, _authentication.ResourceHostOf(requested.VaultUri)))
        {
            throw new EncryptionException(
                EncryptionErrorKind.KeyUnavailable,
                $"Key Vault answered for the key '{answeredKeyId}' instead of '{requested}'.");
        }

        return requested.Version is null ? requested.WithVersion(answered.Version!) : requested;
    }
}
