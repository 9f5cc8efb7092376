using Azure.Core;

namespace Encryption.Custom.AzureKeyVault;

/// <summary>
/// Options for the <see cref="AzureKeyVaultKeyWrapProvider"/>. Retries, delays and the network timeout are the
/// standard <see cref="ClientOptions.Retry"/> settings (Azure.Core defaults: 3 retries, exponential back-off from
/// 0.8 s, 100 s network timeout; throttling answers' <c>Retry-After</c> is honoured); <see cref="ClientOptions.Transport"/>
/// replaces the HTTP transport.
/// </summary>
public sealed class AzureKeyVaultKeyWrapProviderOptions : ClientOptions
{
    /// <summary>Creates options for <paramref name="version"/> of the Key Vault REST API.</summary>
    /// <param name="version">The REST API version; default the newest this library knows.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="version"/> is not a known version.</exception>
    public AzureKeyVaultKeyWrapProviderOptions(ServiceVersion version = LatestVersion)
    {
        Version = version switch
        {
            ServiceVersion.V7_4 => "7.4",
            ServiceVersion.V7_5 => "7.5",
            _ => throw new ArgumentOutOfRangeException(nameof(version)),
        };
    }

    /// <summary>The Key Vault REST API versions this library can use.</summary>
#pragma warning disable CA1707 // Azure SDK convention: service versions are named V{major}_{minor}.
    public enum ServiceVersion
    {
        /// <summary>Key Vault REST API 7.4.</summary>
        V7_4 = 1,

        /// <summary>Key Vault REST API 7.5.</summary>
        V7_5 = 2,
    }
#pragma warning restore CA1707

    /// <summary>The newest REST API version this library knows.</summary>
    internal const ServiceVersion LatestVersion = ServiceVersion.V7_5;

    /// <summary>The REST API version sent as <c>api-version</c>.</summary>
    public string Version { get; }

    /// <summary>
    /// How long an unwrapped data encryption key may be cached before Key Vault is asked again (reported as the
    /// unwrap result's <see cref="EncryptionKeyUnwrapResult.ClientCacheTimeToLive"/>). Default: 2 hours.
    /// Longer rides out longer Key Vault outages; shorter makes disabling a key-encryption key take effect sooner.
    /// </summary>
    public TimeSpan DataEncryptionKeyCacheTimeToLive { get; set; } = TimeSpan.FromHours(2);

    /// <summary>
    /// When false (default), the resource named by Key Vault's authentication challenge must be the vault's own
    /// domain (for example <c>vault.azure.net</c> for <c>myvault.vault.azure.net</c>), so that a look-alike endpoint
    /// cannot obtain a token for another resource. Set true only for a private endpoint whose host differs.
    /// </summary>
    public bool DisableChallengeResourceVerification { get; set; }

    /// <summary>
    /// Vaults whose keys the provider may wrap and unwrap with, as vault URIs (<c>https://my-vault.vault.azure.net/</c>):
    /// every key and version in them is allowed. Together with <see cref="AllowedKeys"/> this is the provider's
    /// allow-list of key-encryption keys; a DEK document naming any other key fails with
    /// <see cref="EncryptionErrorKind.KeyUnavailable"/> before a request is sent. Default: empty. When both lists
    /// are empty, every key the credential can use is allowed on an Azure Key Vault or Managed HSM host of the public or a
    /// sovereign cloud (see <see cref="AllowAnyVaultHost"/>); set at least
    /// one entry so that whoever can write the DEK container cannot choose the key-encryption key (see
    /// docs/security.md). Read when the provider is created.
    /// </summary>
    public IList<Uri> AllowedVaults { get; } = new List<Uri>();

    /// <summary>
    /// Key identifiers the provider may wrap and unwrap with: <c>https://{vault}/keys/{name}</c> allows every
    /// version of the key (so that key rotation needs no change here), <c>…/{name}/{version}</c> only that version.
    /// See <see cref="AllowedVaults"/>. Default: empty. Read when the provider is created.
    /// </summary>
    public IList<Uri> AllowedKeys { get; } = new List<Uri>();

    /// <summary>
    /// Whether, with <see cref="AllowedVaults"/> and <see cref="AllowedKeys"/> both empty, a key on any https host is
    /// used. Default <see langword="false"/>: only hosts under the Key Vault and Managed HSM domains of the public and
    /// sovereign clouds (<c>*.vault.azure.net</c>, <c>*.managedhsm.azure.net</c>, <c>*.vault.azure.cn</c>,
    /// <c>*.vault.usgovcloudapi.net</c>, …: docs/security.md), as Microsoft's key store provider accepts; a DEK
    /// document naming another host fails with <see cref="EncryptionErrorKind.KeyUnavailable"/> on wrap and unwrap,
    /// before anything is sent. A private endpoint or a Key Vault-compatible service on another host is better
    /// listed in <see cref="AllowedVaults"/>; set this only when no list can be kept (a test double).
    /// </summary>
    public bool AllowAnyVaultHost { get; set; }
}
