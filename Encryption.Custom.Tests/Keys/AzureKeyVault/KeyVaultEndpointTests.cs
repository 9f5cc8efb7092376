using System.Security.Cryptography;
using Azure.Core.Pipeline;
using Encryption.Custom.AzureKeyVault;
using Encryption.Custom.Tests.Keys.TestSupport;

namespace Encryption.Custom.Tests.Keys.AzureKeyVault;

/// <summary>How the provider finds and trusts vaults: private endpoints (alias hosts), tenants and scopes, challenge headers.</summary>
public sealed class KeyVaultEndpointTests : FakeKeyVaultTestBase
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task WrapThenUnwrap_ThroughAnAliasHost_AcceptsTheVaultsOwnNameUnderTheChallengedResource(bool signedEnvelope)
    {
        // A private endpoint: the request goes to the alias (here the loopback address), Key Vault's challenge names
        // its resource and its answers name the vault's own host.
        Vault.ChallengeResource = "https://vault.azure.net";
        Vault.KidVaultUri = new Uri("https://my-vault.vault.azure.net/");
        AzureKeyVaultKeyWrapProvider provider = CreateProvider(options => options.DisableChallengeResourceVerification = true);
        EncryptionKeyWrapMetadata metadata = signedEnvelope
            ? SignedEnvelopeMetadata("myKek", VersionlessKeyId)
            : Metadata(VersionlessKeyId);
        byte[] dek = RandomNumberGenerator.GetBytes(32);

        EncryptionKeyWrapResult wrapped = await provider.WrapKeyAsync(dek, metadata, Ct);
        using EncryptionKeyUnwrapResult unwrapped = await provider.UnwrapKeyAsync(wrapped.WrappedDataEncryptionKey, wrapped.EncryptionKeyWrapMetadata, Ct);

        Assert.Equal(dek, unwrapped.DataEncryptionKey.ToArray());
        Assert.Equal(KeyId.AbsoluteUri, wrapped.EncryptionKeyWrapMetadata.Value); // the host the application named, the version that wrapped
    }

    [Theory]
    [InlineData("https://my-vault.evil.example/")]
    [InlineData("https://vault.azure.net.evil.example/")]
    public async Task UnwrapKeyAsync_AnswerNamingAHostOutsideTheChallengedResource_IsRejected(string kidVault)
    {
        Vault.ChallengeResource = "https://vault.azure.net";
        AzureKeyVaultKeyWrapProvider provider = CreateProvider(options => options.DisableChallengeResourceVerification = true);
        EncryptionKeyWrapResult wrapped = await provider.WrapKeyAsync(RandomNumberGenerator.GetBytes(32), Metadata(KeyId), Ct);
        Vault.KidVaultUri = new Uri(kidVault);

        var error = await Assert.ThrowsAsync<EncryptionException>(() => provider.UnwrapKeyAsync(wrapped.WrappedDataEncryptionKey, wrapped.EncryptionKeyWrapMetadata, Ct));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Contains(new Uri(kidVault).Host, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Operations_OnVaultsInTwoTenants_FetchOneTokenPerTenant()
    {
        await using FakeKeyVault other = await FakeKeyVault.StartAsync();
        other.TenantId = "72f988bf-0000-0000-0000-000000000002";
        Uri otherKey = other.AddKey("kek", TestRsaKeys.Second());
        AzureKeyVaultKeyWrapProvider provider = CreateProviderTrusting(Vault, other);

        for (int i = 0; i < 3; i++)
        {
            await provider.WrapKeyAsync(RandomNumberGenerator.GetBytes(32), Metadata(KeyId), Ct);
            await provider.WrapKeyAsync(RandomNumberGenerator.GetBytes(32), Metadata(otherKey), Ct);
        }

        Assert.Equal(2, Credential.Issued);
        Assert.Equal([FakeKeyVault.DefaultTenantId, other.TenantId], Credential.Requests.Select(r => r.TenantId).Order());
    }

    [Fact]
    public async Task WrapKeyAsync_SeveralChallengesInOneHeader_AuthenticatesWithTheBearerChallenge()
    {
        Vault.ChallengeHeader = bearer => $"PoP nonce=\"n0, n1\", Basic realm=\"vault\", {bearer}";
        AzureKeyVaultKeyWrapProvider provider = CreateProvider();

        EncryptionKeyWrapResult wrapped = await provider.WrapKeyAsync(RandomNumberGenerator.GetBytes(32), Metadata(KeyId), Ct);

        Assert.Equal(256, wrapped.WrappedDataEncryptionKey.Length);
        Assert.Equal(FakeKeyVault.DefaultTenantId, Assert.Single(Credential.Requests).TenantId);
    }

    private Uri VersionlessKeyId => new(Vault.VaultUri, "keys/kek");

    private AzureKeyVaultKeyWrapProvider CreateProvider(Action<AzureKeyVaultKeyWrapProviderOptions>? configure = null) =>
        AzureKeyVaultKeyWrapProviderTests.CreateProvider(Vault, Credential, configure);

    /// <summary>One provider (one challenge and token cache) whose transport trusts every given vault's certificate.</summary>
    private AzureKeyVaultKeyWrapProvider CreateProviderTrusting(params FakeKeyVault[] vaults)
    {
        string[] thumbprints = [.. vaults.Select(v => v.Certificate.Thumbprint)];
        var handler = new HttpClientHandler
        {
            ServerCertificateCustomValidationCallback = (_, certificate, _, _) => certificate is not null && thumbprints.Contains(certificate.Thumbprint),
        };
        // The fake vaults listen on loopback, not on a Key Vault domain.
        return new AzureKeyVaultKeyWrapProvider(Credential, new AzureKeyVaultKeyWrapProviderOptions { Transport = new HttpClientTransport(handler), AllowAnyVaultHost = true });
    }
}
