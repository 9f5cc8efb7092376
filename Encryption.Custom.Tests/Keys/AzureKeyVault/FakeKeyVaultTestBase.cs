using System.Security.Cryptography;
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
