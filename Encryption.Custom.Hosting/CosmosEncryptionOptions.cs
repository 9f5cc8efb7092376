using System.ComponentModel.DataAnnotations;

namespace Encryption.Custom;

/// <summary>
/// What <c>AddCosmosEncryption</c> sets up: where the data encryption keys (DEKs) are stored, which of them are warmed
/// at start and checked by the health check, and the key provider's cache options. Usually bound from a configuration
/// section (see <c>docs/hosting.md</c>) and validated when the host starts.
/// </summary>
public sealed class CosmosEncryptionOptions
{
    /// <summary>The default <see cref="EncryptionAlgorithm"/>: <see cref="CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized"/>.</summary>
    public const string DefaultEncryptionAlgorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    /// <summary>The id of the database holding the DEK container. Required.</summary>
    [Required]
    public string? DatabaseId { get; set; }

    /// <summary>The id of the DEK container (partition key <c>/id</c>). Required.</summary>
    [Required]
    public string? KeyContainerId { get; set; }

    /// <summary>
    /// Whether the start creates the DEK container when it does not exist (and checks the partition key of an
    /// existing one), as <see cref="CosmosDataEncryptionKeyProvider.InitializeAsync"/> does. Default: true. Set false
    /// when the application's identity only has data-plane roles (Cosmos DB RBAC cannot create containers); the
    /// container is then used as it is.
    /// </summary>
    public bool CreateKeyContainerIfNotExists { get; set; } = true;

    /// <summary>
    /// The DEKs to load (read and unwrap) at start, so that the first requests do not wait for the key-wrap provider,
    /// and that the health check unwraps. Default: none.
    /// </summary>
    public IList<string> DataEncryptionKeyIds { get; } = [];

    /// <summary>The algorithm the <see cref="DataEncryptionKeyIds"/> are loaded for. Default: <see cref="DefaultEncryptionAlgorithm"/>.</summary>
    public string EncryptionAlgorithm { get; set; } = DefaultEncryptionAlgorithm;

    /// <summary>
    /// Whether a DEK that cannot be loaded at start fails the host's start. Default: true, so a missing key-encryption
    /// key or permission is found at deployment rather than by the first request. When false, the failure is logged,
    /// the host starts, and the health check reports the key.
    /// </summary>
    public bool FailStartOnWarmUpError { get; set; } = true;

    /// <summary>
    /// The options of the <see cref="CosmosDataEncryptionKeyProvider"/> (caches, refresh, rewrap retries; bound from the
    /// <c>KeyProvider</c> subsection). Its <see cref="CosmosDataEncryptionKeyProviderOptions.LoggerFactory"/> defaults to
    /// the host's <c>ILoggerFactory</c>.
    /// </summary>
    public CosmosDataEncryptionKeyProviderOptions KeyProvider { get; } = new();
}
