using System.Security.Cryptography;
using Encryption.Custom.Keys;
using Encryption.Custom.Tests.Crypto;

namespace Encryption.Custom.Tests.Keys;

/// <summary>The public, protected <see cref="DataEncryptionKey"/>: derivation labels per algorithm, wiping, lifetime.</summary>
public class DataEncryptionKeyTests
{
    private const string Current = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;
    private const string Legacy = CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized;

    // wire-format.md §2: marker 2 ‖ cell of "hello" under root key 01..20 and IV 00..0f.
    private const string HelloVector = "AgFPKXw7s9jtbwh7oU9mEKdwJWAUgB8pr4hti+1nvIfcoQABAgMEBQYHCAkKCwwNDg92uiY0TEw4p5D3+lQLmRnj";

    private static byte[] VectorRootKey() => Enumerable.Range(1, 32).Select(i => (byte)i).ToArray();

    [Fact]
    public void DecryptData_PublishedVector_ReturnsPlainText()
    {
        using DataEncryptionKey key = DataEncryptionKey.Create(VectorRootKey(), Current);

        byte[] plainText = key.DecryptData(Convert.FromBase64String(HelloVector)[1..]);

        Assert.Equal("hello"u8.ToArray(), plainText);
    }

    [Theory]
    [InlineData(Current, false)]
    [InlineData(Legacy, true)]
    public void EncryptData_EachAlgorithm_UsesItsLabelsBothWays(string algorithm, bool legacyLabels)
    {
        byte[] root = RandomNumberGenerator.GetBytes(32);
        using DataEncryptionKey key = DataEncryptionKey.Create((byte[])root.Clone(), algorithm);
        byte[] plainText = RandomNumberGenerator.GetBytes(100);

        byte[] cell = key.EncryptData(plainText);
        byte[] referenceCell = ReferenceAead.Encrypt(root, plainText, RandomNumberGenerator.GetBytes(16), legacyLabels);

        Assert.Equal(plainText, ReferenceAead.Decrypt(root, cell, legacyLabels));
        Assert.Equal(plainText, key.DecryptData(referenceCell));
        Assert.Equal(algorithm, key.EncryptionAlgorithm);
    }

    [Fact]
    public void DecryptData_CellOfTheOtherAlgorithm_Fails()
    {
        byte[] root = RandomNumberGenerator.GetBytes(32);
        using DataEncryptionKey current = DataEncryptionKey.Create((byte[])root.Clone(), Current);
        using DataEncryptionKey legacy = DataEncryptionKey.Create((byte[])root.Clone(), Legacy);

        byte[] cell = current.EncryptData([1, 2, 3]);

        EncryptionException error = Assert.Throws<EncryptionException>(() => legacy.DecryptData(cell));
        Assert.Equal(EncryptionErrorKind.InvalidCipherText, error.Kind);
        Assert.False(legacy.TryDecryptLeased(cell, new byte[cell.Length], out _));
    }

    [Fact]
    public void Create_ByteArray_WipesTheArray()
    {
        byte[] root = RandomNumberGenerator.GetBytes(32);

        using DataEncryptionKey key = DataEncryptionKey.Create(root, Current);

        Assert.All(root, b => Assert.Equal(0, b));
    }

    [Theory]
    [InlineData(31, Current)]
    [InlineData(33, Current)]
    [InlineData(32, "Aes256Gcm")]
    public void Create_BadKeyOrAlgorithm_ThrowsAndStillWipes(int length, string algorithm)
    {
        byte[] root = RandomNumberGenerator.GetBytes(length);
        root[0] = 0xAA;

        Assert.Throws<ArgumentException>(() => DataEncryptionKey.Create(root, algorithm));

        Assert.All(root, b => Assert.Equal(0, b));
    }

    [Fact]
    public void Generate_TwoKeys_CannotReadEachOther()
    {
        using DataEncryptionKey first = DataEncryptionKey.Generate(Current);
        using DataEncryptionKey second = DataEncryptionKey.Generate(Current);

        byte[] cell = first.EncryptData([42]);

        Assert.Equal([42], first.DecryptData(cell));
        Assert.Throws<EncryptionException>(() => second.DecryptData(cell));
    }

    [Fact]
    public void ByteCounts_MatchTheCellLayout()
    {
        using DataEncryptionKey key = DataEncryptionKey.Generate(Current);

        Assert.Equal(65, key.GetEncryptByteCount(0));
        Assert.Equal(81, key.GetEncryptByteCount(16));
        Assert.Equal(81, key.EncryptData(new byte[16]).Length);
        Assert.True(key.GetDecryptByteCount(81) >= 16);
    }

    [Fact]
    public void Dispose_ThenUse_ThrowsObjectDisposedAndWipes()
    {
        var key = (ProtectedDataEncryptionKey)DataEncryptionKey.Generate(Current);
        byte[] cell = key.EncryptData([1]);

        key.Dispose();
        key.Dispose();

        Assert.True(key.IsReleased);
        Assert.Throws<ObjectDisposedException>(() => key.EncryptData([1]));
        Assert.Throws<ObjectDisposedException>(() => key.DecryptData(cell));
        Assert.False(DataEncryptionKeyLease.TryAcquire(key, out _));
    }

    [Fact]
    public async Task Dispose_WhileThreadsUseTheKey_OnlyObjectDisposedEscapes()
    {
        for (int round = 0; round < 10; round++)
        {
            DataEncryptionKey key = DataEncryptionKey.Generate(Current);
            using var start = new Barrier(5);
            Task[] users = Enumerable.Range(0, 4).Select(_ => Task.Run(() =>
            {
                start.SignalAndWait(TestContext.Current.CancellationToken);
                byte[] plainText = new byte[300];
                while (true)
                {
                    try
                    {
                        Assert.Equal(plainText, key.DecryptData(key.EncryptData(plainText)));
                    }
                    catch (ObjectDisposedException)
                    {
                        return;
                    }
                }
            }, TestContext.Current.CancellationToken)).ToArray();

            start.SignalAndWait(TestContext.Current.CancellationToken);
            await Task.Delay(5, TestContext.Current.CancellationToken);
            key.Dispose();

            await Task.WhenAll(users);
        }
    }

    [Fact]
    public void ToString_ShowsNoKeyBytes()
    {
        byte[] root = VectorRootKey();
        string hex = Convert.ToHexString(root);
        string base64 = Convert.ToBase64String(root);
        using DataEncryptionKey key = DataEncryptionKey.Create(root, Current);

        string text = key.ToString()!;

        Assert.DoesNotContain(hex, text, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain(base64, text, StringComparison.Ordinal);
        Assert.Contains(Current, text, StringComparison.Ordinal);
    }
}
