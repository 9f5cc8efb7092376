using System.Security.Cryptography;
using Encryption.Custom.Keys;
using Encryption.Custom.AzureKeyVault;
using Encryption.Custom.Keys.Cosmos;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Encryption.Custom.Tests.Keys.TestSupport;
using Fault = Encryption.Custom.Tests.Keys.AzureKeyVault.FakeKeyVault.Fault;
using Microsoft.Extensions.Time.Testing;

namespace Encryption.Custom.Tests.Keys.AzureKeyVault;

/// <summary>The DEK provider over the Key Vault provider: verification, length checks and outages end to end (Cosmos side faked).</summary>
public sealed class AzureKeyVaultDataEncryptionKeyTests : IAsyncLifetime
{
    private const string Mde = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    private readonly FakeTimeProvider _time = new(TestClock.Start);
    private readonly TestKeyFactory _keys = new();
    private readonly FakeContainer _container = new("keys", "/id");
    private FakeKeyVault _vault = null!;
    private CosmosDataEncryptionKeyProvider _provider = null!;
    private Uri _keyId = null!;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    // The vault runs on 127.0.0.1: its keys' metadata is made under the any-host rule the provider is created with.
    private static EncryptionKeyWrapMetadata Metadata(Uri keyId) =>
        AzureKeyVaultKeyWrapProvider.CreateMetadata(keyId, new AzureKeyVaultKeyWrapProviderOptions { AllowAnyVaultHost = true });

    public async ValueTask InitializeAsync()
    {
        _vault = await FakeKeyVault.StartAsync();
        _keyId = _vault.AddKey("kek", TestRsaKeys.First());
        AzureKeyVaultKeyWrapProvider keyVault = AzureKeyVaultKeyWrapProviderTests.CreateProvider(_vault, new TestTokenCredential(), options =>
        {
            options.DataEncryptionKeyCacheTimeToLive = TimeSpan.FromHours(1);
            options.Retry.MaxRetries = 1;
        });
        _provider = new CosmosDataEncryptionKeyProvider(keyVault, new CosmosDataEncryptionKeyProviderOptions { TimeProvider = _time }, _keys);
        _provider.Initialize(_container);
    }

    public async ValueTask DisposeAsync()
    {
        _provider.Dispose();
        await _vault.DisposeAsync();
    }

    [Fact]
    public async Task CreateDataEncryptionKeyAsync_VaultUnwrapsToAnotherKey_IsDetectedAndNothingStored()
    {
        _vault.Enqueue(Fault.WrongValue(32), "unwrapkey");

        var error = await Assert.ThrowsAsync<EncryptionException>(() => _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Metadata(_keyId), cancellationToken: Ct));

        Assert.Equal("dek1", error.DataEncryptionKeyId);
        Assert.Contains("did not unwrap to the same key", error.Message, StringComparison.Ordinal);
        Assert.Empty(_container.ReceivedBodies);
    }

    [Fact]
    public async Task FetchDataEncryptionKeyAsync_VaultUnwrapsToWrongLength_ThrowsNamingTheDek()
    {
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Metadata(_keyId), cancellationToken: Ct);
        await _provider.Cache.InvalidateAsync("dek1", replacement: null, Ct);
        _vault.Enqueue(Fault.WrongValue(16), "unwrapkey");

        var error = await Assert.ThrowsAsync<EncryptionException>(() => _provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct).AsTask());

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Equal("dek1", error.DataEncryptionKeyId);
        Assert.Contains("16 bytes", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task FetchDataEncryptionKeyAsync_KeyVaultOutage_CachedKeyWorksUntilExpiryThenClearErrorThenRecovery()
    {
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Metadata(_keyId), cancellationToken: Ct);
        DataEncryptionKey cached = await _provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct);
        byte[] raw = ((TestDataEncryptionKey)cached).RawKey;
        int unwrapsBefore = _vault.CountOperations("unwrapkey");
        _vault.Unavailable = true;

        // Inside the key's lifetime the outage is invisible, also while background refreshes fail.
        _time.Advance(TimeSpan.FromMinutes(57));
        Assert.Same(cached, await _provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct));
        await WaitForRefreshAsync();
        Assert.Same(cached, await _provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct));
        Assert.True(_vault.CountOperations("unwrapkey") > unwrapsBefore);

        _time.Advance(TimeSpan.FromMinutes(4));
        var error = await Assert.ThrowsAsync<EncryptionException>(() => _provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct).AsTask());
        Assert.Equal("dek1", error.DataEncryptionKeyId);
        Assert.Contains("HTTP 503", error.Message, StringComparison.Ordinal);
        Assert.True(((TestDataEncryptionKey)cached).IsDisposed);

        _vault.Unavailable = false;
        DataEncryptionKey recovered = await _provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct);
        Assert.Equal(raw, ((TestDataEncryptionKey)recovered).RawKey);
    }

    [Fact]
    public async Task RewrapDataEncryptionKeyAsync_ToRotatedKeyVersion_KeepsKeyAndUsesNewVersion()
    {
        await _provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, Metadata(_keyId), cancellationToken: Ct);
        byte[] raw = ((TestDataEncryptionKey)await _provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct)).RawKey;
        Uri rotated = _vault.AddKey("kek", TestRsaKeys.Second());

        DataEncryptionKeyProperties rewrapped = (await _provider.DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync("dek1", Metadata(rotated), cancellationToken: Ct)).Resource;
        DataEncryptionKey after = await _provider.FetchDataEncryptionKeyAsync("dek1", Mde, Ct);

        Assert.Equal(rotated.AbsoluteUri, rewrapped.EncryptionKeyWrapMetadata.Value);
        using RSA second = TestRsaKeys.Second();
        Assert.Equal(raw, second.Decrypt(rewrapped.WrappedDataEncryptionKey.ToArray(), RSAEncryptionPadding.OaepSHA256));
        Assert.Equal(raw, ((TestDataEncryptionKey)after).RawKey);
    }

    private async Task WaitForRefreshAsync()
    {
        Task? refresh = _provider.Cache.GetLoadInFlight("dek1", Mde);
        if (refresh is not null)
        {
            await Assert.ThrowsAsync<EncryptionException>(() => refresh);
        }
    }
}
