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

    /// <summary>
    /// Parses <paramref name="value"/>; null when it is not a key identifier. A user information part
    /// (<c>https://user:password@vault…</c>) is refused rather than dropped: it has no meaning for Key Vault, and an
    /// identifier that does not say exactly where it points is not one to send a key to.
    /// </summary>
    public static KeyVaultKeyIdentifier? TryParse(string? value)
    {
        if (!Uri.TryCreate(value, UriKind.Absolute, out Uri? uri)
            || !string.Equals(uri.Scheme, Uri.UriSchemeHttps, StringComparison.OrdinalIgnoreCase)
            || !string.IsNullOrEmpty(uri.UserInfo)
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

    /// <summary>This key at <paramref name="version"/>, on the same vault host.</summary>
    public KeyVaultKeyIdentifier WithVersion(string version) => new(VaultUri, Name, version);

    /// <summary>
    /// True when <paramref name="answered"/>, the versioned identifier Key Vault put in its answer, is this key: the
    /// same name, this version (when this identifier has one), and either this vault host or, for a request through
    /// a private endpoint or another alias host, a host under <paramref name="resourceHost"/>, the resource domain
    /// the vault's authentication challenge named.
    /// </summary>
    public bool IsAnsweredBy(KeyVaultKeyIdentifier answered, string? resourceHost) =>
        answered.Version is not null
        && string.Equals(Name, answered.Name, StringComparison.OrdinalIgnoreCase)
        && (Version is null || string.Equals(Version, answered.Version, StringComparison.OrdinalIgnoreCase))
        && (string.Equals(VaultUri.Authority, answered.VaultUri.Authority, StringComparison.OrdinalIgnoreCase)
            || (resourceHost is not null && KeyVaultChallenge.IsResourceOfHost(resourceHost, answered.VaultUri.Host)));

    public override string ToString() => KeyUri.AbsoluteUri;
}
