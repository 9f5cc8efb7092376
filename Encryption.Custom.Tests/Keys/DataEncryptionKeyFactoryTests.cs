using System.Security.Cryptography;
using Encryption.Custom.Keys;
using Encryption.Custom.Keys.Cosmos;
using Encryption.Custom.Keys.Local;
using Encryption.Custom.Tests.Cosmos.TestSupport;
using Encryption.Custom.Tests.Keys.TestSupport;

namespace Encryption.Custom.Tests.Keys;

/// <summary>The production factory seam, and the key layer end to end with real protected keys.</summary>
public class DataEncryptionKeyFactoryTests
{
    private const string Mde = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public void Default_Create_MakesAProtectedKeyAndZeroesTheRawKey()
    {
        byte[] raw = RandomNumberGenerator.GetBytes(32);

        using DataEncryptionKey key = DataEncryptionKeyFactory.Default.Create(raw, Mde);

        Assert.IsType<ProtectedDataEncryptionKey>(key);
        Assert.Equal(Mde, key.EncryptionAlgorithm);
        Assert.All(raw, b => Assert.Equal(0, b));
    }

    [Fact]
    public void Default_CreateWithWrongLength_ThrowsAndStillZeroesTheInput()
    {
        byte[] raw = RandomNumberGenerator.GetBytes(16);

        Assert.ThrowsAny<ArgumentException>(() => DataEncryptionKeyFactory.Default.Create(raw, Mde));

        Assert.All(raw, b => Assert.Equal(0, b));
    }

    [Fact]
    public async Task CosmosEncryptor_WithProtectedKeys_RoundTripsAndDisposesOnProviderDispose()
    {
        using var local = new LocalKeyWrapProvider();
        local.AddAesKey("kek", RandomNumberGenerator.GetBytes(32));
        var container = new FakeContainer("keys", "/id");
        DataEncryptionKey key;
        byte[] cipherText;
        using (var provider = new CosmosDataEncryptionKeyProvider(local))
        {
            provider.Initialize(container);
            await provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync("dek1", Mde, LocalKeyWrapProvider.CreateMetadata("kek", KeyWrapAlgorithm.AesKeyWrap), cancellationToken: Ct);
            var encryptor = new CosmosEncryptor(provider);
            key = await encryptor.GetEncryptionKeyAsync("dek1", Mde, Ct);
            Assert.IsType<ProtectedDataEncryptionKey>(key);

            cipherText = await encryptor.EncryptAsync("secret"u8.ToArray(), "dek1", Mde, Ct);
            Assert.Equal("secret"u8.ToArray(), await encryptor.DecryptAsync(cipherText, "dek1", Mde, Ct));
            Assert.Equal(65, cipherText.Length);
        }

        // The provider owned the cached key: disposing the provider released it.
        Assert.Throws<ObjectDisposedException>(() => key.DecryptData(cipherText));
    }
}
