using System.Security.Cryptography;
using Encryption.Custom.Keys;
using Encryption.Custom.Keys.Caching;
using Encryption.Custom.Tests.Keys.TestSupport;
using Microsoft.Extensions.Time.Testing;

namespace Encryption.Custom.Tests.Keys.Caching;

/// <summary>The cache with the library's real protected keys (the production factory), not test keys.</summary>
public sealed class DekCacheProtectedKeyTests : IDisposable
{
    private const string Mde = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;
    private const string Legacy = CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized;

    private readonly FakeTimeProvider _time = new(TestClock.Start);
    private readonly FakeDekSource _source = new(TimeSpan.FromMinutes(60));
    private readonly DekCache _cache;

    public DekCacheProtectedKeyTests()
    {
        _source.AddKey("dek1");
        _cache = new DekCache(_source, new DekCacheSettings { TimeProvider = _time }, DataEncryptionKeyFactory.Default);
    }

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public void Dispose()
    {
        _cache.Dispose();
        _source.Dispose();
    }

    [Theory]
    [InlineData(Mde)]
    [InlineData(Legacy)]
    public async Task GetKeyAsync_ProtectedKey_IsTheKeyTheDocumentWraps(string algorithm)
    {
        DataEncryptionKey cached = await _cache.GetKeyAsync("dek1", algorithm, Ct);
        byte[] cipherText = cached.EncryptData("document value"u8.ToArray());

        // An independent key made from the same raw bytes reads what the cached key wrote, and the other algorithm does not.
        using DataEncryptionKey same = DataEncryptionKey.Create((byte[])_source.RawKeys["dek1"].Clone(), algorithm);
        using DataEncryptionKey otherAlgorithm = DataEncryptionKey.Create((byte[])_source.RawKeys["dek1"].Clone(), algorithm == Mde ? Legacy : Mde);

        Assert.Equal(algorithm, cached.EncryptionAlgorithm);
        Assert.Equal("document value"u8.ToArray(), same.DecryptData(cipherText));
        Assert.Throws<EncryptionException>(() => otherAlgorithm.DecryptData(cipherText));
    }

    [Fact]
    public async Task InvalidateAsync_WhileAnOperationHoldsAPin_KeyStaysUsableUntilThePinEnds()
    {
        DataEncryptionKey cached = await _cache.GetKeyAsync("dek1", Mde, Ct);
        byte[] cipherText = cached.EncryptData("value"u8.ToArray());

        using (cached.Pin())
        {
            await _cache.InvalidateAsync("dek1", replacement: null, Ct);

            Assert.Equal("value"u8.ToArray(), cached.DecryptData(cipherText));
        }

        Assert.Throws<ObjectDisposedException>(() => cached.DecryptData(cipherText));
        DataEncryptionKey reloaded = await _cache.GetKeyAsync("dek1", Mde, Ct);
        Assert.Equal("value"u8.ToArray(), reloaded.DecryptData(cipherText));
    }

    [Fact]
    public async Task GetKeyAsync_AfterExpiry_OldProtectedKeyIsReleased()
    {
        DataEncryptionKey first = await _cache.GetKeyAsync("dek1", Mde, Ct);
        byte[] cipherText = first.EncryptData(RandomNumberGenerator.GetBytes(40));

        _time.Advance(TimeSpan.FromMinutes(61));
        DataEncryptionKey second = await _cache.GetKeyAsync("dek1", Mde, Ct);

        Assert.NotSame(first, second);
        Assert.Throws<ObjectDisposedException>(() => first.DecryptData(cipherText));
        Assert.Equal(40, second.DecryptData(cipherText).Length);
    }
}
