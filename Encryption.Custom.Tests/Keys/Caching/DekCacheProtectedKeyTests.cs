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
    public async Task InvalidateAsync_WhileAnOperationHoldsALease_KeyStaysUsableUntilTheLeaseEnds()
    {
        byte[] cipherText;
        DataEncryptionKey cached;
        using (DataEncryptionKeyLease lease = await _cache.LeaseKeyAsync("dek1", Mde, Ct))
        {
            cached = lease.Key;
            cipherText = cached.EncryptLeased("value"u8);
            await _cache.InvalidateAsync("dek1", replacement: null, Ct);

            Assert.Equal("value"u8.ToArray(), cached.DecryptLeased(cipherText));
            Assert.False(cached.IsReleased);
        }

        Assert.True(cached.IsReleased);
        Assert.Throws<ObjectDisposedException>(() => cached.DecryptData(cipherText));
        using DataEncryptionKeyLease reloaded = await _cache.LeaseKeyAsync("dek1", Mde, Ct);
        Assert.NotSame(cached, reloaded.Key);
        Assert.Equal("value"u8.ToArray(), reloaded.Key.DecryptLeased(cipherText));
    }

    [Fact]
    public async Task LeaseKeyAsync_ExpiredKeyReplacedWhileLeased_OldKeyReleasedWhenTheLeaseEnds()
    {
        DataEncryptionKeyLease first = await _cache.LeaseKeyAsync("dek1", Mde, Ct);
        byte[] cipherText = first.Key.EncryptLeased(RandomNumberGenerator.GetBytes(40));

        _time.Advance(TimeSpan.FromMinutes(61));
        using DataEncryptionKeyLease second = await _cache.LeaseKeyAsync("dek1", Mde, Ct);

        Assert.NotSame(first.Key, second.Key);
        Assert.Equal(40, first.Key.DecryptLeased(cipherText).Length);
        first.Dispose();
        Assert.True(first.Key.IsReleased);
        Assert.False(second.Key.IsReleased);
    }

    [Fact]
    public async Task LeaseKeyAsync_SeveralCallersWaitForOneLoad_EachGetsALeaseOfItsOwn()
    {
        _source.UnwrapGate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        ValueTask<DataEncryptionKeyLease>[] waiting = [.. Enumerable.Range(0, 3).Select(_ => _cache.LeaseKeyAsync("dek1", Mde, Ct))];
        _source.UnwrapGate.SetResult();
        DataEncryptionKeyLease[] leases = [.. await Task.WhenAll(waiting.Select(pending => pending.AsTask()))];
        DataEncryptionKey key = leases[0].Key;

        await _cache.InvalidateAsync("dek1", replacement: null, Ct);
        Assert.All(leases, lease => Assert.Same(key, lease.Key));
        Assert.Equal(1, _source.UnwrapCount);
        leases[0].Dispose();
        leases[1].Dispose();
        Assert.False(key.IsReleased);

        leases[2].Dispose();
        Assert.True(key.IsReleased);
    }

    [Fact]
    public async Task LeaseKeyAsync_WaiterCancelledBeforeTheLoadEnds_TakesNoReferenceAway()
    {
        _source.UnwrapGate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var cancel = new CancellationTokenSource();
        ValueTask<DataEncryptionKeyLease> cancelled = _cache.LeaseKeyAsync("dek1", Mde, cancel.Token);
        ValueTask<DataEncryptionKeyLease> waiting = _cache.LeaseKeyAsync("dek1", Mde, Ct);

        await cancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => cancelled.AsTask());
        _source.UnwrapGate.SetResult();
        DataEncryptionKeyLease lease = await waiting;

        // The cancelled caller's reservation was dropped: the key is released as soon as the owner and the one lease let go.
        await _cache.InvalidateAsync("dek1", replacement: null, Ct);
        lease.Dispose();
        Assert.True(lease.Key.IsReleased);
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
