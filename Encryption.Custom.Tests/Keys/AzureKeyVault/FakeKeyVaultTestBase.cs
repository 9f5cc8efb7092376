using System.Security.Cryptography;
using Encryption.Custom.AzureKeyVault;
using Encryption.Custom.Tests.Keys.TestSupport;

namespace Encryption.Custom.Tests.Keys.AzureKeyVault;

/// <summary>
/// Tests against one in-process <see cref="FakeKeyVault"/> per test, holding one RSA key-encryption key ("kek")
/// whose private key the test also has (<see cref="Rsa"/>), to build or check wrapped keys independently.
/// </summary>
public abstract class FakeKeyVaultTestBase : IAsyncLifetime
{
    protected static CancellationToken Ct => TestContext.Current.CancellationToken;

    private protected TestTokenCredential Credential { get; } = new();

    private protected FakeKeyVault Vault { get; private set; } = null!;

    protected Uri KeyId { get; private set; } = null!;

    protected RSA Rsa { get; private set; } = null!;

    /// <summary>
    /// Options that allow any host, as the tests' providers do: the vault runs on 127.0.0.1, which the default rule
    /// (Key Vault and Managed HSM hosts only, <see cref="KeyVaultHostTests"/>) refuses.
    /// </summary>
    private protected static AzureKeyVaultKeyWrapProviderOptions AnyHost => new() { AllowAnyVaultHost = true };

    /// <summary><see cref="AzureKeyVaultKeyWrapProvider.CreateMetadata(Uri, AzureKeyVaultKeyWrapProviderOptions, string)"/> under <see cref="AnyHost"/>.</summary>
    protected static EncryptionKeyWrapMetadata Metadata(Uri keyId, string algorithm = KeyWrapAlgorithm.RsaOaep256) =>
        AzureKeyVaultKeyWrapProvider.CreateMetadata(keyId, AnyHost, algorithm);

    /// <summary><see cref="AzureKeyVaultKeyWrapProvider.CreateSignedEnvelopeMetadata(string, Uri, AzureKeyVaultKeyWrapProviderOptions)"/> under <see cref="AnyHost"/>.</summary>
    protected static EncryptionKeyWrapMetadata SignedEnvelopeMetadata(string keyEncryptionKeyName, Uri keyId) =>
        AzureKeyVaultKeyWrapProvider.CreateSignedEnvelopeMetadata(keyEncryptionKeyName, keyId, AnyHost);

    public async ValueTask InitializeAsync()
    {
        Vault = await FakeKeyVault.StartAsync();
        Rsa = TestRsaKeys.First();
        KeyId = Vault.AddKey("kek", TestRsaKeys.First());
    }

    public async ValueTask DisposeAsync()
    {
        await Vault.DisposeAsync();
        Rsa.Dispose();
        GC.SuppressFinalize(this);
    }
}
