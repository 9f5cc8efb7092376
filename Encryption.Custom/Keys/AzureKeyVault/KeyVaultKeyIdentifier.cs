namespace Encryption.Custom.AzureKeyVault;

/// <summary>A parsed Key Vault key identifier: <c>https://{vault host}/keys/{name}[/{version}]</c>.</summary>
internal sealed class KeyVaultKeyIdentifier
{
    private KeyVaultKeyIdentifier(Uri vaultUri, string name, string? version)
    {
        VaultUri = vaultUri;
        Name = name;
        Version = version;
        KeyUri = new Uri(vaultUri, version is null ? $"keys/{name}" : $"keys/{name}/{version}");
    }

    public Uri VaultUri { get; }

    public string Name { get; }

    public string? Version { get; }

    /// <summary>The normalized identifier (no trailing slash), the base of the operation URIs.</summary>
    public Uri KeyUri { get; }

    /// <summary>Parses <paramref name="value"/>; null when it is not a key identifier.</summary>
    public static KeyVaultKeyIdentifier? TryParse(string? value)
    {
        if (!Uri.TryCreate(value, UriKind.Absolute, out Uri? uri)
            || !string.Equals(uri.Scheme, Uri.UriSchemeHttps, StringComparison.OrdinalIgnoreCase)
            || !string.IsNullOrEmpty(uri.Query)
            || !string.IsNullOrEmpty(uri.Fragment))
        {
            return null;
        }

        string[] segments = uri.AbsolutePath.Trim('/').Split('/');
        if (segments.Length is < 2 or > 3
            || !string.Equals(segments[0], "keys", StringComparison.OrdinalIgnoreCase)
            || segments.Any(string.IsNullOrEmpty))
        {
            return null;
        }

        var vault = new Uri($"{uri.Scheme}://{uri.Authority}/");
        return new KeyVaultKeyIdentifier(vault, segments[1], segments.Length == 3 ? segments[2] : null);
    }

    /// <summary>True when <paramref name="other"/> names the same vault and key (any version).</summary>
    public bool IsSameKey(KeyVaultKeyIdentifier other) =>
        string.Equals(VaultUri.Authority, other.VaultUri.Authority, StringComparison.OrdinalIgnoreCase)
        && string.Equals(Name, other.Name, StringComparison.OrdinalIgnoreCase);

    public override string ToString() => KeyUri.AbsoluteUri;
}
