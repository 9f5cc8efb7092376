using System.Security.Cryptography;
using Encryption.Custom.Keys;
using Encryption.Custom.AzureKeyVault;
using Encryption.Custom.Keys.Cosmos;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Encryption.Custom.Tests.Keys.TestSupport;

namespace Encryption.Custom.Tests.Keys.AzureKeyVault;

/// <summary>
/// The KEK allow-list (<c>AllowedVaults</c>, <c>AllowedKeys</c>): whoever can write the DEK container must not be
/// able to make the application unwrap, or wrap, with a key-encryption key of their choosing.
/// </summary>
public sealed class KeyVaultAllowListTests : FakeKeyVaultTestBase
{
    private const string Mde = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    [Fact]
    public async Task FetchDataEncryptionKeyAsync_DocumentSwappedToAnotherKekTheIdentityCanUse_IsRefused()
    {
        // The attacker writes a DEK they know, wrapped under another key the application's identity can also use.
        Uri attackersKey = Vault.AddKey("other-kek", TestRsaKeys.Second());
        byte[] knownDek = RandomNumberGenerator.GetBytes(32);
        EncryptionKeyWrapResult swapped = await CreateProvider().WrapKeyAsync(knownDek, Metadata(attackersKey), Ct);
        var container = new FakeContainer("keys", "/id");
        container.Seed(
            $"{{\"id\":\"dek\",\"encryptionAlgorithm\":\"{Mde}\",\"wrappedDataEncryptionKey\":\"{Convert.ToBase64String(swapped.WrappedDataEncryptionKey.Span)}\"," +
            $"\"keyWrapMetadata\":{{\"type\":\"akv\",\"name\":\"other-kek\",\"value\":\"{swapped.EncryptionKeyWrapMetadata.Value}\",\"algorithm\":\"RSA-OAEP-256\"}}}}");
        int requestsBefore = Vault.Requests.Count;
        using var keys = new CosmosDataEncryptionKeyProvider(
            CreateProvider(options => options.AllowedKeys.Add(new Uri(Vault.VaultUri, "keys/kek"))), new CosmosDataEncryptionKeyProviderOptions(), new TestKeyFactory());
        keys.Initialize(container);

        var error = await Assert.ThrowsAsync<EncryptionException>(async () => await keys.FetchDataEncryptionKeyAsync("dek", Mde, Ct));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Contains(swapped.EncryptionKeyWrapMetadata.Value, error.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain(Convert.ToBase64String(knownDek), error.ToString(), StringComparison.Ordinal);
        Assert.Equal(requestsBefore, Vault.Requests.Count);
    }

    [Theory]
    [InlineData("keys/kek")]      // every version of the key
    [InlineData("vault")]         // every key of the vault
    public async Task WrapThenUnwrap_AllowedKeyAfterARotation_Works(string allowed)
    {
        AzureKeyVaultKeyWrapProvider provider = CreateProvider(options =>
        {
            if (allowed == "vault")
            {
                options.AllowedVaults.Add(Vault.VaultUri);
            }
            else
            {
                options.AllowedKeys.Add(new Uri(Vault.VaultUri, allowed));
            }
        });
        Vault.AddKey("kek", TestRsaKeys.Second());
        byte[] dek = RandomNumberGenerator.GetBytes(32);

        EncryptionKeyWrapResult wrapped = await provider.WrapKeyAsync(dek, Metadata(new Uri(Vault.VaultUri, "keys/kek")), Ct);
        using EncryptionKeyUnwrapResult unwrapped = await provider.UnwrapKeyAsync(wrapped.WrappedDataEncryptionKey, wrapped.EncryptionKeyWrapMetadata, Ct);

        Assert.Equal(dek, unwrapped.DataEncryptionKey.ToArray());
    }

    [Fact]
    public async Task WrapAndUnwrap_KeyNotAllowed_FailBeforeAnyRequest()
    {
        Uri otherKey = Vault.AddKey("other-kek", TestRsaKeys.Second());
        AzureKeyVaultKeyWrapProvider provider = CreateProvider(options =>
        {
            options.AllowedKeys.Add(KeyId);                                  // one version only
            options.AllowedVaults.Add(new Uri("https://elsewhere.vault.azure.net/"));
        });
        Uri newerVersion = Vault.AddKey("kek", TestRsaKeys.Second());

        foreach (Uri key in new[] { otherKey, newerVersion, new Uri(Vault.VaultUri, "keys/kek") })
        {
            var wrapError = await Assert.ThrowsAsync<EncryptionException>(() => provider.WrapKeyAsync(new byte[32], Metadata(key), Ct));
            var unwrapError = await Assert.ThrowsAsync<EncryptionException>(() => provider.UnwrapKeyAsync(new byte[256], new EncryptionKeyWrapMetadata("k", key.AbsoluteUri), Ct));
            Assert.Equal(EncryptionErrorKind.KeyUnavailable, wrapError.Kind);
            Assert.Equal(EncryptionErrorKind.KeyUnavailable, unwrapError.Kind);
            Assert.Contains(key.AbsoluteUri, unwrapError.Message, StringComparison.Ordinal);
        }

        Assert.Empty(Vault.Requests);
    }

    [Theory]
    [InlineData("https://v.vault.azure.net/keys/kek", null)]
    [InlineData(null, "https://v.vault.azure.net/secrets/kek")]
    [InlineData(null, "http://v.vault.azure.net/keys/kek")]
    public void Constructor_AllowListEntryThatIsNotAVaultOrKey_Throws(string? vault, string? key)
    {
        var options = new AzureKeyVaultKeyWrapProviderOptions();
        if (vault is not null)
        {
            options.AllowedVaults.Add(new Uri(vault));
        }

        if (key is not null)
        {
            options.AllowedKeys.Add(new Uri(key));
        }

        Assert.Throws<ArgumentException>(() => new AzureKeyVaultKeyWrapProvider(Credential, options));
    }

    private AzureKeyVaultKeyWrapProvider CreateProvider(Action<AzureKeyVaultKeyWrapProviderOptions>? configure = null) =>
        AzureKeyVaultKeyWrapProviderTests.CreateProvider(Vault, Credential, configure);
}
