using Encryption.Custom.Keys;
using Encryption.Custom.Tests.Keys.TestSupport;

namespace Encryption.Custom.Tests.Keys;

public class CosmosEncryptorTests
{
    private const string Mde = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task GetEncryptionKeyAsync_AsksTheProviderForIdAndAlgorithm()
    {
        var provider = new RecordingProvider();
        var encryptor = new CosmosEncryptor(provider);

        DataEncryptionKey key = await encryptor.GetEncryptionKeyAsync("dek1", Mde, Ct);

        Assert.Same(provider.Key, key);
        Assert.Equal(("dek1", Mde), provider.LastRequest);
    }

    [Fact]
    public async Task EncryptAsyncThenDecryptAsync_RoundTripsThroughTheProvidersKey()
    {
        var encryptor = new CosmosEncryptor(new RecordingProvider());
        byte[] plainText = "secret"u8.ToArray();

        byte[] cipherText = await encryptor.EncryptAsync(plainText, "dek1", Mde, Ct);
        byte[] decrypted = await encryptor.DecryptAsync(cipherText, "dek1", Mde, Ct);

        Assert.NotEqual(plainText, cipherText);
        Assert.Equal(plainText, decrypted);
    }

    [Theory]
    [InlineData(null, Mde)]
    [InlineData("", Mde)]
    [InlineData("dek1", null)]
    [InlineData("dek1", "")]
    public async Task GetEncryptionKeyAsync_MissingArgument_ThrowsArgumentException(string? id, string? algorithm)
    {
        var encryptor = new CosmosEncryptor(new RecordingProvider());

        await Assert.ThrowsAnyAsync<ArgumentException>(() => encryptor.GetEncryptionKeyAsync(id!, algorithm!, Ct).AsTask());
    }

    [Fact]
    public void Constructor_NullProvider_Throws()
    {
        Assert.Throws<ArgumentNullException>(() => new CosmosEncryptor(null!));
    }

    private sealed class RecordingProvider : DataEncryptionKeyProvider
    {
        public TestDataEncryptionKey Key { get; } = new(Enumerable.Range(1, 32).Select(i => (byte)i).ToArray(), Mde);

        public (string Id, string Algorithm)? LastRequest { get; private set; }

        public override ValueTask<DataEncryptionKey> FetchDataEncryptionKeyAsync(string id, string encryptionAlgorithm, CancellationToken cancellationToken = default)
        {
            LastRequest = (id, encryptionAlgorithm);
            return new ValueTask<DataEncryptionKey>(Key);
        }
    }
}
