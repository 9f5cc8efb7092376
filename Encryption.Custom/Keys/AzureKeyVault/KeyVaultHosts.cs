// The hosts a Key Vault key may live on when the provider has no allow-list. A DEK document names its KEK, and the
// provider sends the raw DEK to that host on wrap and takes its answer as the DEK on unwrap: with no rule, whoever
// can write the DEK container picks the host. Microsoft's key store provider for Always Encrypted and Microsoft Data
// Encryption (which Microsoft's Cosmos DB encryption package uses) accepts only these domains; this list is theirs,
// with the French and German sovereign clouds that newer versions of SqlClient's provider added (docs/security.md).
namespace Encryption.Custom.AzureKeyVault;

/// <summary>The Azure Key Vault and Managed HSM domains of the public and sovereign clouds.</summary>
internal static class KeyVaultHosts
{
    /// <summary>The domains, as a host ends with them after a dot (<c>my-vault.vault.azure.net</c>).</summary>
    public static readonly string[] Domains =
    [
        "vault.azure.net", "managedhsm.azure.net",                  // public cloud
        "vault.azure.cn", "managedhsm.azure.cn",                    // Azure operated by 21Vianet (China)
        "vault.usgovcloudapi.net", "managedhsm.usgovcloudapi.net",  // Azure Government (US)
        "vault.microsoftazure.de", "managedhsm.microsoftazure.de",  // Azure Germany (closed; kept as Microsoft's providers keep it)
        "vault.sovcloud-api.fr", "managedhsm.sovcloud-api.fr",      // Bleu (France)
        "vault.sovcloud-api.de", "managedhsm.sovcloud-api.de",      // Delos (Germany)
    ];

    /// <summary>
    /// True when <paramref name="host"/> is a name under one of <see cref="Domains"/> (at least one label before it):
    /// <c>kv.vault.azure.net</c> is, <c>vault.azure.net</c>, <c>evilvault.azure.net</c> and
    /// <c>kv.vault.azure.net.example</c> are not. Case does not matter; a trailing dot is not accepted.
    /// </summary>
    public static bool IsKeyVaultHost(string host)
    {
        foreach (string domain in Domains)
        {
            if (host.Length > domain.Length + 1
                && host.EndsWith(domain, StringComparison.OrdinalIgnoreCase)
                && host[host.Length - domain.Length - 1] == '.')
            {
                return true;
            }
        }

        return false;
    }
}
