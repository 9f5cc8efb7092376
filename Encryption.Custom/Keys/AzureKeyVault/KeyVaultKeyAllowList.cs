// The key-encryption keys a provider may use, from AzureKeyVaultKeyWrapProviderOptions.AllowedVaults and
// AllowedKeys, copied when the provider is created. The key is the one the DEK document names (the host the
// request goes to), checked before anything is sent; see docs/security.md for why.
namespace Encryption.Custom.AzureKeyVault;

/// <summary>Which Key Vault keys a provider may wrap and unwrap with.</summary>
internal sealed class KeyVaultKeyAllowList
{
    private readonly HashSet<string> _vaults;
    private readonly KeyVaultKeyIdentifier[] _keys;

    private KeyVaultKeyAllowList(HashSet<string> vaults, KeyVaultKeyIdentifier[] keys)
    {
        _vaults = vaults;
        _keys = keys;
    }

    /// <summary>True when neither list has an entry: every key is allowed.</summary>
    public bool IsUnrestricted => _vaults.Count == 0 && _keys.Length == 0;

    /// <exception cref="ArgumentException">An entry is null, not an https vault URI or not a key identifier.</exception>
    public static KeyVaultKeyAllowList Create(IEnumerable<Uri> vaults, IEnumerable<Uri> keys, string parameterName)
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

        return new KeyVaultKeyAllowList(vaultAuthorities, [.. keyIdentifiers]);
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
