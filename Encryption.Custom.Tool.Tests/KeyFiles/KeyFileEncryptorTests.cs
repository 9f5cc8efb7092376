using System.Reflection;
using System.Text;
using Encryption.Custom.Keys;
using Encryption.Custom.Tool.KeyFiles;
using Encryption.Custom.Tool.Tests.TestSupport;

namespace Encryption.Custom.Tool.Tests.KeyFiles;

public sealed class KeyFileEncryptorTests : IDisposable
{
    private const string Current = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;
    private const string Legacy = CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized;

    private readonly TempFolder _folder = new();
    private readonly TestKey _key = TestKey.Random();

    public void Dispose() => _folder.Dispose();

    [Theory]
    [InlineData(Current)]
    [InlineData(Legacy)]
    public async Task GetEncryptionKeyAsync_AnyId_ReturnsTheFileKeyForTheRequestedAlgorithm(string algorithm)
    {
        using KeyFileEncryptor encryptor = KeyFileEncryptor.Open(_key.WriteKeyFile(_folder));
        using DataEncryptionKey reference = _key.CreateDataEncryptionKey(algorithm);

        DataEncryptionKey key = await encryptor.GetEncryptionKeyAsync("whatever-the-document-says", algorithm, TestContext.Current.CancellationToken);

        Assert.Equal(algorithm, key.EncryptionAlgorithm);
        byte[] plain = Encoding.UTF8.GetBytes("same key, same derivation");
        Assert.Equal(plain, reference.DecryptData(key.EncryptData(plain)));
        Assert.Same(key, await encryptor.GetEncryptionKeyAsync("another", algorithm, TestContext.Current.CancellationToken));
    }

    [Fact]
    public async Task GetEncryptionKeyAsync_FirstRequest_WipesTheRawKey()
    {
        using KeyFileEncryptor encryptor = KeyFileEncryptor.Open(_key.WriteKeyFile(_folder));
        byte[] raw = RawKey(encryptor);
        Assert.Equal(_key.Hex, Convert.ToHexStringLower(raw));

        await encryptor.GetEncryptionKeyAsync("d", Current, TestContext.Current.CancellationToken);

        Assert.All(raw, b => Assert.Equal(0, b));
    }

    [Fact]
    public void Dispose_Unused_WipesTheRawKey()
    {
        KeyFileEncryptor encryptor = KeyFileEncryptor.Open(_key.WriteKeyFile(_folder));
        byte[] raw = RawKey(encryptor);

        encryptor.Dispose();

        Assert.All(raw, b => Assert.Equal(0, b));
        Assert.Throws<ObjectDisposedException>(() => encryptor.GetEncryptionKeyAsync("d", Current, TestContext.Current.CancellationToken));
    }

    [Fact]
    public async Task GetEncryptionKeyAsync_SecondAlgorithm_FailsAsKeyUnavailable()
    {
        using KeyFileEncryptor encryptor = KeyFileEncryptor.Open(_key.WriteKeyFile(_folder));
        await encryptor.GetEncryptionKeyAsync("d", Current, TestContext.Current.CancellationToken);

        EncryptionException exception = await Assert.ThrowsAsync<EncryptionException>(
            async () => await encryptor.GetEncryptionKeyAsync("d", Legacy, TestContext.Current.CancellationToken));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, exception.Kind);
        Assert.Equal("d", exception.DataEncryptionKeyId);
    }

    [Fact]
    public async Task GetEncryptionKeyAsync_UnknownAlgorithm_FailsAsKeyUnavailableAndWipesTheRawKey()
    {
        using KeyFileEncryptor encryptor = KeyFileEncryptor.Open(_key.WriteKeyFile(_folder));
        byte[] raw = RawKey(encryptor);

        EncryptionException exception = await Assert.ThrowsAsync<EncryptionException>(
            async () => await encryptor.GetEncryptionKeyAsync("d", "NoSuchAlgorithm", TestContext.Current.CancellationToken));

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, exception.Kind);
        Assert.All(raw, b => Assert.Equal(0, b));
    }

    // The pinned array the encryptor keeps until first use; read by reflection since nothing else may see it.
    private static byte[] RawKey(KeyFileEncryptor encryptor) =>
        (byte[])typeof(KeyFileEncryptor).GetField("_rawKey", BindingFlags.Instance | BindingFlags.NonPublic)!.GetValue(encryptor)!;
}
