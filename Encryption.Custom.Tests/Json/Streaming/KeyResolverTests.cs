using System.Security.Cryptography;
using Encryption.Custom.Json.Leasing;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json.Streaming;

/// <summary>
/// Keys are leased per document, where they are cached; nothing is retried. A key evicted while leased finishes
/// the operation; a key an encryptor hands out already disposed fails as disposed.
/// </summary>
public sealed class KeyResolverTests
{
    private static readonly byte[] s_root = RandomNumberGenerator.GetBytes(32);

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task Decrypt_KeyEvictedRightAfterItWasLeased_Succeeds(JsonProcessor kind)
    {
        using DataEncryptionKey writer = TestKeys.Create(TestKeyKind.Protected, s_root);
        byte[] encrypted = Processors.Create(kind).Encrypt("{\"id\":\"1\",\"a\":\"x\"}", writer, new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a"] });
        var encryptor = new EvictingEncryptor();

        byte[] decrypted = Processors.Create(kind).Decrypt(encrypted, encryptor);
        var output = new MemoryStream();
        await Processors.Create(kind).DecryptAsync(new MemoryStream(encrypted), output, encryptor, cancellationToken: TestContext.Current.CancellationToken);

        Assert.Equal("{\"id\":\"1\",\"a\":\"x\"}", decrypted.Utf8());
        Assert.Equal(decrypted, output.ToArray());
        Assert.All(encryptor.Handed, key => Assert.True(key.IsReleased));
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public async Task EncryptAsync_KeyEvictedRightAfterItWasLeased_SucceedsWithoutASecondReference(JsonProcessor kind)
    {
        var encryptor = new EvictingEncryptor();
        var output = new MemoryStream();

        await Processors.Create(kind).EncryptAsync(new MemoryStream("{\"id\":\"1\",\"a\":\"x\"}"u8.ToArray()), output, encryptor, new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a"] }, TestContext.Current.CancellationToken);

        using DataEncryptionKey reader = TestKeys.Create(TestKeyKind.Protected, s_root);
        Assert.Equal("{\"id\":\"1\",\"a\":\"x\"}", Processors.Create(kind).Decrypt(output.ToArray(), new TestEncryptor().Add("k", reader)).Utf8());
        Assert.True(Assert.Single(encryptor.Handed).IsReleased);
    }

    [Theory]
    [MemberData(nameof(Processors.All), MemberType = typeof(Processors))]
    public void Decrypt_EncryptorHandsOutADisposedKey_FailsAsDisposedWithoutRetrying(JsonProcessor kind)
    {
        using DataEncryptionKey writer = TestKeys.Create(TestKeyKind.Protected, s_root);
        byte[] encrypted = Processors.Create(kind).Encrypt("{\"id\":\"1\",\"a\":\"x\"}", writer, new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a"] });
        var encryptor = new DisposedKeyEncryptor();

        Assert.Throws<ObjectDisposedException>(() => Processors.Create(kind).Decrypt(encrypted, encryptor));
        Assert.Equal(1, encryptor.Lookups);
    }

    [Fact]
    public void Encrypt_DisposedKey_ThrowsObjectDisposed()
    {
        DataEncryptionKey key = TestKeys.Create(TestKeyKind.Protected, s_root);
        key.Dispose();

        Assert.Throws<ObjectDisposedException>(() => new StreamProcessor().Encrypt("{\"a\":1}", key, new EncryptionOptions { DataEncryptionKeyId = "k", PathsToEncrypt = ["/a"] }));
    }

    [Fact]
    public void Lease_KeyEvictedWhileLeased_StaysUsableUntilTheLeaseEnds()
    {
        DataEncryptionKey key = TestKeys.Create(TestKeyKind.Protected, s_root);
        var encryptor = new TestEncryptor().Add("k", key);
        byte[] cell;

        using (DataEncryptionKeyLease lease = KeyResolver.Lease(encryptor, "k", CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized))
        {
            key.Dispose();
            cell = lease.Key.EncryptLeased("still usable"u8);
        }

        Assert.Throws<ObjectDisposedException>(() => key.EncryptData("gone"u8.ToArray()));
        using DataEncryptionKey fresh = TestKeys.Create(TestKeyKind.Protected, s_root);
        Assert.Equal("still usable"u8.ToArray(), fresh.DecryptData(cell));
    }

    /// <summary>Evicts (disposes) each key right after the operation leased it: the worst moment for the operation.</summary>
    private sealed class EvictingEncryptor : Encryptor
    {
        public List<DataEncryptionKey> Handed { get; } = [];

        public override ValueTask<DataEncryptionKey> GetEncryptionKeyAsync(string dataEncryptionKeyId, string encryptionAlgorithm, CancellationToken cancellationToken = default) =>
            throw new NotSupportedException("The library's operations lease.");

        internal override ValueTask<DataEncryptionKeyLease> LeaseEncryptionKeyAsync(string dataEncryptionKeyId, string encryptionAlgorithm, CancellationToken cancellationToken)
        {
            DataEncryptionKey key = TestKeys.Create(TestKeyKind.Protected, s_root, encryptionAlgorithm);
            Handed.Add(key);
            DataEncryptionKeyLease lease = DataEncryptionKeyLease.Acquire(key);
            key.Dispose();
            return new ValueTask<DataEncryptionKeyLease>(lease);
        }
    }

    /// <summary>Answers with a key it has already disposed (a broken encryptor).</summary>
    private sealed class DisposedKeyEncryptor : Encryptor
    {
        public int Lookups { get; private set; }

        public override ValueTask<DataEncryptionKey> GetEncryptionKeyAsync(string dataEncryptionKeyId, string encryptionAlgorithm, CancellationToken cancellationToken = default)
        {
            Lookups++;
            DataEncryptionKey key = TestKeys.Create(TestKeyKind.Protected, s_root, encryptionAlgorithm);
            key.Dispose();
            return new ValueTask<DataEncryptionKey>(key);
        }
    }
}
