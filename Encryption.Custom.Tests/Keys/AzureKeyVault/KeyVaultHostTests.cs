using System.Security.Cryptography;
using Encryption.Custom.AzureKeyVault;

namespace Encryption.Custom.Tests.Keys.AzureKeyVault;

/// <summary>
/// Without an allow-list the provider sends keys only to Azure Key Vault and Managed HSM hosts: a DEK document
/// naming <c>https://kv.attacker.example/keys/kek</c> must not receive the raw DEK on wrap, nor choose the DEK on
/// unwrap. Another host needs <c>AllowedVaults</c>/<c>AllowedKeys</c> or <c>AllowAnyVaultHost</c>.
/// </summary>
public sealed class KeyVaultHostTests : FakeKeyVaultTestBase
{
    [Theory]
    [InlineData("kv.vault.azure.net")]
    [InlineData("KV.Vault.Azure.NET")]
    [InlineData("kv.privatelink.vault.azure.net")]
    [InlineData("hsm.managedhsm.azure.net")]
    [InlineData("kv.vault.azure.cn")]
    [InlineData("kv.vault.usgovcloudapi.net")]
    [InlineData("kv.managedhsm.usgovcloudapi.net")]
    [InlineData("kv.vault.microsoftazure.de")]
    [InlineData("kv.vault.sovcloud-api.fr")]
    [InlineData("kv.managedhsm.sovcloud-api.de")]
    public void IsKeyVaultHost_KeyVaultAndManagedHsmHosts_AreAccepted(string host) => Assert.True(KeyVaultHosts.IsKeyVaultHost(host));

    [Theory]
    [InlineData("kv.attacker.example")]
    [InlineData("vault.azure.net")]
    [InlineData("evilvault.azure.net")]
    [InlineData("kv.vault.azure.net.attacker.example")]
    [InlineData("kv.vault.azure.net.")]
    [InlineData("kv.vault-azure.net")]
    [InlineData("kv.azure.net")]
    [InlineData("127.0.0.1")]
    [InlineData("localhost")]
    public void IsKeyVaultHost_OtherHosts_AreRefused(string host) => Assert.False(KeyVaultHosts.IsKeyVaultHost(host));

    [Fact]
    public async Task WrapAndUnwrap_KeyOnAnotherHostWithDefaultOptions_AreRefusedBeforeAnythingIsSentNamingTheOptions()
    {
        AzureKeyVaultKeyWrapProvider provider = AzureKeyVaultKeyWrapProviderTests.CreateProvider(Vault, Credential, options => options.AllowAnyVaultHost = false);
        byte[] dek = RandomNumberGenerator.GetBytes(32);
        int requestsBefore = Vault.Requests.Count;

        var wrap = await Assert.ThrowsAsync<EncryptionException>(() => provider.WrapKeyAsync(dek, Metadata(KeyId), Ct));
        var unwrap = await Assert.ThrowsAsync<EncryptionException>(() => provider.UnwrapKeyAsync(new byte[256], Metadata(KeyId), Ct));

        Assert.All(new[] { wrap, unwrap }, error =>
        {
            Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
            Assert.Contains("not on an Azure Key Vault or Managed HSM host", error.Message, StringComparison.Ordinal);
            Assert.Contains("*.vault.azure.net", error.Message, StringComparison.Ordinal);
            Assert.Contains("AllowedVaults", error.Message, StringComparison.Ordinal);
            Assert.Contains("AllowedKeys", error.Message, StringComparison.Ordinal);
            Assert.Contains("AllowAnyVaultHost", error.Message, StringComparison.Ordinal);
            Assert.DoesNotContain(Convert.ToBase64String(dek), error.ToString(), StringComparison.Ordinal);
        });
        Assert.Equal(requestsBefore, Vault.Requests.Count);
    }

    [Theory]
    [InlineData("https://kv.attacker.example/keys/kek")]
    [InlineData("https://127.0.0.1:8443/keys/kek")]
    [InlineData("https://kv.vault.azure.net.attacker.example/keys/kek/v1")]
    public void CreateMetadata_KeyOnAnotherHostWithDefaultOptions_IsRefusedNamingTheOptions(string keyId)
    {
        var metadata = Assert.Throws<ArgumentException>(() => AzureKeyVaultKeyWrapProvider.CreateMetadata(new Uri(keyId)));
        var envelope = Assert.Throws<ArgumentException>(() => AzureKeyVaultKeyWrapProvider.CreateSignedEnvelopeMetadata("kek", new Uri(keyId)));
        var withDefaults = Assert.Throws<ArgumentException>(() => AzureKeyVaultKeyWrapProvider.CreateMetadata(new Uri(keyId), new AzureKeyVaultKeyWrapProviderOptions()));

        Assert.All(new[] { metadata, envelope, withDefaults }, error =>
        {
            Assert.Equal("keyId", error.ParamName);
            Assert.Contains("not on an Azure Key Vault or Managed HSM host", error.Message, StringComparison.Ordinal);
            Assert.Contains("AllowedVaults", error.Message, StringComparison.Ordinal);
            Assert.Contains("options", error.Message, StringComparison.Ordinal);
        });
    }

    [Fact]
    public void CreateMetadata_WithTheProvidersOptions_FollowsTheirRule()
    {
        var keyId = new Uri("https://kv.attacker.example/keys/kek");
        var listed = new AzureKeyVaultKeyWrapProviderOptions();
        listed.AllowedVaults.Add(new Uri("https://kv.attacker.example/"));
        var otherKeyListed = new AzureKeyVaultKeyWrapProviderOptions();
        otherKeyListed.AllowedKeys.Add(new Uri("https://kv.vault.azure.net/keys/kek"));

        Assert.Equal(keyId.AbsoluteUri, AzureKeyVaultKeyWrapProvider.CreateMetadata(keyId, listed).Value);
        Assert.Equal(keyId.AbsoluteUri, AzureKeyVaultKeyWrapProvider.CreateMetadata(keyId, new AzureKeyVaultKeyWrapProviderOptions { AllowAnyVaultHost = true }).Value);
        Assert.Equal(keyId.AbsoluteUri, AzureKeyVaultKeyWrapProvider.CreateSignedEnvelopeMetadata("kek", keyId, listed).Value);
        Assert.Contains("is not allowed by this provider", Assert.Throws<ArgumentException>(() => AzureKeyVaultKeyWrapProvider.CreateMetadata(new Uri("https://other.vault.azure.net/keys/kek"), otherKeyListed)).Message, StringComparison.Ordinal);
        Assert.Equal("https://kv.vault.azure.net/keys/kek", AzureKeyVaultKeyWrapProvider.CreateMetadata(new Uri("https://kv.vault.azure.net/keys/kek")).Value);
        Assert.Throws<ArgumentNullException>(() => AzureKeyVaultKeyWrapProvider.CreateMetadata(keyId, (AzureKeyVaultKeyWrapProviderOptions)null!));
    }

    [Fact]
    public async Task WrapThenUnwrap_AnotherHostListedInAllowedVaults_Works()
    {
        AzureKeyVaultKeyWrapProvider provider = AzureKeyVaultKeyWrapProviderTests.CreateProvider(Vault, Credential, options =>
        {
            options.AllowAnyVaultHost = false;
            options.AllowedVaults.Add(Vault.VaultUri);
        });
        byte[] dek = RandomNumberGenerator.GetBytes(32);

        EncryptionKeyWrapResult wrapped = await provider.WrapKeyAsync(dek, Metadata(KeyId), Ct);
        using EncryptionKeyUnwrapResult unwrapped = await provider.UnwrapKeyAsync(wrapped.WrappedDataEncryptionKey, wrapped.EncryptionKeyWrapMetadata, Ct);

        Assert.Equal(dek, unwrapped.DataEncryptionKey.ToArray());
    }

    [Fact]
    public async Task Unwrap_MetadataWithUserInformation_IsRefusedWithoutQuotingIt()
    {
        AzureKeyVaultKeyWrapProvider provider = AzureKeyVaultKeyWrapProviderTests.CreateProvider(Vault, Credential);
        string withUser = new UriBuilder(KeyId) { UserName = "operator", Password = "hunter2" }.Uri.AbsoluteUri;
        int requestsBefore = Vault.Requests.Count;

        var error = await Assert.ThrowsAsync<ArgumentException>(() => provider.UnwrapKeyAsync(new byte[256], new EncryptionKeyWrapMetadata("akv", "kek", withUser, KeyWrapAlgorithm.RsaOaep256), Ct));

        Assert.DoesNotContain("hunter2", error.Message, StringComparison.Ordinal);
        Assert.Contains("user information", error.Message, StringComparison.Ordinal);
        Assert.Equal(requestsBefore, Vault.Requests.Count);
    }
}
