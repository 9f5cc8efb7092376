// The key-encryption keys a provider may use, from AzureKeyVaultKeyWrapProviderOptions.AllowedVaults,
// AllowedKeys and AllowAnyVaultHost, copied when the provider is created. The key is the one the DEK document names
// (the host the request goes to), checked before anything is sent; see docs/security.md for why. The one owner of
// that rule: the provider applies it on wrap and unwrap, CreateMetadata when the metadata is made.
namespace Encryption.Custom.AzureKeyVault;

/// <summary>Which Key Vault keys a provider may wrap and unwrap with.</summary>
internal sealed class KeyVaultKeyAllowList
{
    private readonly HashSet<string> _vaults;
    private readonly KeyVaultKeyIdentifier[] _keys;
    private readonly bool _anyHost;

    private KeyVaultKeyAllowList(HashSet<string> vaults, KeyVaultKeyIdentifier[] keys, bool anyHost)
    {
        _vaults = vaults;
        _keys = keys;
        _anyHost = anyHost;
    }

    /// <summary>The rule of default options: no list, Key Vault and Managed HSM hosts only.</summary>
    public static KeyVaultKeyAllowList Default { get; } = new(new HashSet<string>(StringComparer.OrdinalIgnoreCase), [], anyHost: false);

    /// <summary>True when neither list has an entry: every key is allowed.</summary>
    public bool IsUnrestricted => _vaults.Count == 0 && _keys.Length == 0;

    /// <summary>The rule of <paramref name="options"/>.</summary>
    /// <exception cref="ArgumentException">An entry is null, not an https vault URI or not a key identifier.</exception>
    public static KeyVaultKeyAllowList Create(AzureKeyVaultKeyWrapProviderOptions options, string parameterName) =>
        Create(options.AllowedVaults, options.AllowedKeys, options.AllowAnyVaultHost, parameterName);

    /// <exception cref="ArgumentException">An entry is null, not an https vault URI or not a key identifier.</exception>
    public static KeyVaultKeyAllowList Create(IEnumerable<Uri> vaults, IEnumerable<Uri> keys, bool allowAnyVaultHost, string parameterName)
    {
        var vaultAuthorities = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        foreach (Uri? vault in vaults)
        {
            if (vault is null || !vault.IsAbsoluteUri || !string.Equals(vault.Scheme, Uri.UriSchemeHttps, StringComparison.OrdinalIgnoreCase) || vault.AbsolutePath.Trim('/').Length > 0)
            {
                throw new ArgumentException($"AllowedVaults holds '{vault}', which is not a vault URI (https://{{vault host}}/).", parameterName);
            }

            vaultAuthorities.Add(vault.Authority);
        }

        var keyIdentifiers = new List<KeyVaultKeyIdentifier>();
        foreach (Uri? key in keys)
        {
            keyIdentifiers.Add(KeyVaultKeyIdentifier.TryParse(key?.OriginalString)
                ?? throw new ArgumentException($"AllowedKeys holds '{key}', which is not a Key Vault key identifier (https://{{vault}}/keys/{{name}}[/{{version}}]).", parameterName));
        }

        return new KeyVaultKeyAllowList(vaultAuthorities, [.. keyIdentifiers], allowAnyVaultHost);
    }

    /// <summary>
    /// Why <paramref name="keyId"/> may not be used, naming the options that would allow it; <see langword="null"/> when
    /// it may: without lists, a key on a Key Vault or Managed HSM host (any host with <c>AllowAnyVaultHost</c>);
    /// with lists, a key they allow.
    /// </summary>
    public string? Refusal(KeyVaultKeyIdentifier keyId)
    {
        if (IsUnrestricted && !_anyHost && !KeyVaultHosts.IsKeyVaultHost(keyId.VaultUri.Host))
        {
            return $"The key-encryption key '{keyId}' is not on an Azure Key Vault or Managed HSM host ({string.Join(", ", KeyVaultHosts.Domains.Select(d => "*." + d))}), so nothing is sent to it. "
                + "To use another host, list its vault in AzureKeyVaultKeyWrapProviderOptions.AllowedVaults or the key in AllowedKeys (or set AllowAnyVaultHost).";
        }

        return Allows(keyId) ? null : $"The key-encryption key '{keyId}' is not allowed by this provider (options AllowedVaults and AllowedKeys).";
    }

    /// <summary>True when <paramref name="keyId"/> is on a listed vault, or is a listed key (any version when listed without one).</summary>
    public bool Allows(KeyVaultKeyIdentifier keyId) =>
        IsUnrestricted
        || _vaults.Contains(keyId.VaultUri.Authority)
        || Array.Exists(_keys, allowed =>
            string.Equals(allowed.VaultUri.Authority, keyId.VaultUri.Authority, StringComparison.OrdinalIgnoreCase)
            && string.Equals(allowed.Name, keyId.Name, StringComparison.OrdinalIgnoreCase)
            && (allowed.Version is null || string.Equals(allowed.Version, keyId.Version, StringComparison.OrdinalIgnoreCase)));
}
