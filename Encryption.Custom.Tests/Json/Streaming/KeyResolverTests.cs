using System.Security.Cryptography;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Keys;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json.Streaming;

/// <summary>Keys are pinned per document; an eviction between lookup and pin is retried once.</summary>
public sealed class KeyResolverTests
{
    private static readonly byte[] s_root = RandomNumberGenerator.GetBytes(32);

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task Decrypt_FirstKeyHandedOutAlreadyEvicted_RetriesAndSucceeds(JsonProcessor kind)
    {
        using DataEncryptionKey writer = TestKeys.Create(TestKeyKind.Protected, s_root);
        byte[] encrypted = Processors.Create(kind).Encrypt("{\"id\":\"1\",\"a\":\"x\"}", writer, new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a"] });
        var encryptor = new EvictingEncryptor(disposedAnswers: 1);

        byte[] decrypted = Processors.Create(kind).Decrypt(encrypted, encryptor);
        var output = new MemoryStream();
        encryptor.DisposedAnswersLeft = 1;
        await Processors.Create(kind).DecryptAsync(new MemoryStream(encrypted), output, encryptor, cancellationToken: TestContext.Current.CancellationToken);

        Assert.Equal("{\"id\":\"1\",\"a\":\"x\"}", decrypted.Utf8());
        Assert.Equal(decrypted, output.ToArray());
        Assert.Equal(4, encryptor.Lookups);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_KeysKeepComingBackEvicted_FailsAsDisposed(JsonProcessor kind)
    {
        using DataEncryptionKey writer = TestKeys.Create(TestKeyKind.Protected, s_root);
        byte[] encrypted = Processors.Create(kind).Encrypt("{\"id\":\"1\",\"a\":\"x\"}", writer, new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a"] });

        Assert.Throws<ObjectDisposedException>(() => Processors.Create(kind).Decrypt(encrypted, new EvictingEncryptor(disposedAnswers: 5)));
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task EncryptAsync_FirstKeyHandedOutAlreadyEvicted_RetriesAndSucceeds(JsonProcessor kind)
    {
        var encryptor = new EvictingEncryptor(disposedAnswers: 1);
        var output = new MemoryStream();

        await Processors.Create(kind).EncryptAsync(new MemoryStream("{\"id\":\"1\",\"a\":\"x\"}"u8.ToArray()), output, encryptor, new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a"] }, TestContext.Current.CancellationToken);

        using DataEncryptionKey reader = TestKeys.Create(TestKeyKind.Protected, s_root);
        Assert.Equal("{\"id\":\"1\",\"a\":\"x\"}", Processors.Create(kind).Decrypt(output.ToArray(), new TestEncryptor().Add("k", reader)).Utf8());
    }

    [Fact]
    public void Encrypt_DisposedKey_ThrowsObjectDisposed()
    {
        DataEncryptionKey key = TestKeys.Create(TestKeyKind.Protected, s_root);
        key.Dispose();

        Assert.Throws<ObjectDisposedException>(() => new StreamProcessor().Encrypt("{\"a\":1}", key, new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a"] }));
    }

    [Fact]
    public void ResolvePinned_KeyEvictedWhilePinned_StaysUsableUntilThePinEnds()
    {
        DataEncryptionKey key = TestKeys.Create(TestKeyKind.Protected, s_root);
        var encryptor = new TestEncryptor().Add("k", key);
        byte[] cell;

        using (PinnedKey pinned = KeyResolver.ResolvePinned(encryptor, "k", CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized))
        {
            key.Dispose();
            cell = pinned.Key.EncryptData("still usable"u8.ToArray());
        }

        Assert.Throws<ObjectDisposedException>(() => key.EncryptData("gone"u8.ToArray()));
        using DataEncryptionKey fresh = TestKeys.Create(TestKeyKind.Protected, s_root);
        Assert.Equal("still usable"u8.ToArray(), fresh.DecryptData(cell));
    }

    /// <summary>Answers each lookup with a fresh key; the first answers are keys its cache already evicted.</summary>
    private sealed class EvictingEncryptor(int disposedAnswers) : Encryptor
    {
        public int DisposedAnswersLeft { get; set; } = disposedAnswers;

        public int Lookups { get; private set; }

        public override ValueTask<DataEncryptionKey> GetEncryptionKeyAsync(string dataEncryptionKeyId, string encryptionAlgorithm, CancellationToken cancellationToken = default)
        {
            Lookups++;
            DataEncryptionKey key = TestKeys.Create(TestKeyKind.Protected, s_root, encryptionAlgorithm);
            if (DisposedAnswersLeft > 0)
            {
                DisposedAnswersLeft--;
                key.Dispose();
            }

            return new ValueTask<DataEncryptionKey>(key);
        }
    }
}
