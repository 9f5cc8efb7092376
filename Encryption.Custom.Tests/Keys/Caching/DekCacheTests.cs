using System.Net.Http;
using Encryption.Custom.Keys;
using Encryption.Custom.Keys.Caching;
using Encryption.Custom.Tests.Keys.TestSupport;
using Microsoft.Extensions.Time.Testing;

namespace Encryption.Custom.Tests.Keys.Caching;

public sealed class DekCacheTests : IDisposable
{
    private const string Mde = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;
    private const string Legacy = CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized;
    private static readonly TimeSpan s_keyTimeToLive = TimeSpan.FromMinutes(60);

    private readonly FakeTimeProvider _time = new(TestClock.Start);
    private readonly FakeDekSource _source = new(s_keyTimeToLive);
    private readonly TestKeyFactory _keys = new();
    private readonly List<DekCache> _caches = [];

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public void Dispose()
    {
        foreach (DekCache cache in _caches)
        {
            cache.Dispose();
        }

        _source.Dispose();
    }

    [Fact]
    public async Task GetKeyAsync_Miss_UnwrapsOnceAndReturnsTheStoredKey()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache();

        DataEncryptionKey first = await cache.GetKeyAsync("dek1", Mde, Ct);
        DataEncryptionKey second = await cache.GetKeyAsync("dek1", Mde, Ct);

        Assert.Same(first, second);
        Assert.Equal(_source.RawKeys["dek1"], ((TestDataEncryptionKey)first).RawKey);
        Assert.Equal(Mde, first.EncryptionAlgorithm);
        Assert.Equal(1, _source.UnwrapCount);
        Assert.Equal(1, _source.ReadCount);
    }

    [Fact]
    public async Task GetKeyAsync_Hit_CompletesSynchronouslyWithoutAllocating()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache();
        DataEncryptionKey expected = await cache.GetKeyAsync("dek1", Mde, Ct);
        Assert.True(cache.GetKeyAsync("dek1", Mde, Ct).IsCompletedSuccessfully);

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 1000; i++)
        {
            ValueTask<DataEncryptionKey> hit = cache.GetKeyAsync("dek1", Mde, Ct);
            if (!hit.IsCompletedSuccessfully || !ReferenceEquals(Completed(hit), expected))
            {
                Assert.Fail("A cache hit must complete synchronously with the cached key.");
            }
        }

        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(0, allocated);
    }

    [Fact]
    public async Task GetKeyAsync_ConcurrentMisses_ShareOneUnwrap()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache();
        _source.UnwrapGate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        Task<DataEncryptionKey>[] callers = new Task<DataEncryptionKey>[64];
        Parallel.For(0, callers.Length, i => callers[i] = cache.GetKeyAsync("dek1", Mde, Ct).AsTask());
        await _source.UnwrapEntered.WaitAsync(Ct);
        _source.UnwrapGate.SetResult();
        DataEncryptionKey[] keys = await Task.WhenAll(callers);

        Assert.Equal(1, _source.UnwrapCount);
        Assert.All(keys, key => Assert.Same(keys[0], key));
    }

    [Fact]
    public async Task GetKeyAsync_NearExpiry_ReturnsCachedKeyAtOnceAndRefreshesInBackground()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache();
        DataEncryptionKey first = await cache.GetKeyAsync("dek1", Mde, Ct);
        _time.Advance(TimeSpan.FromMinutes(56));
        _source.UnwrapGate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        // While the refresh is held inside the provider, every caller still gets the cached key without waiting.
        ValueTask<DataEncryptionKey> duringRefresh = cache.GetKeyAsync("dek1", Mde, Ct);
        await _source.UnwrapEntered.WaitAsync(Ct);
        await _source.UnwrapEntered.WaitAsync(Ct);
        for (int i = 0; i < 100; i++)
        {
            Assert.True(cache.GetKeyAsync("dek1", Mde, Ct).IsCompletedSuccessfully);
        }

        Assert.True(duringRefresh.IsCompletedSuccessfully);
        Assert.Same(first, Completed(duringRefresh));
        Task refresh = cache.GetLoadInFlight("dek1", Mde)!;
        _source.UnwrapGate.SetResult();
        await refresh;
        DataEncryptionKey refreshed = await cache.GetKeyAsync("dek1", Mde, Ct);

        Assert.Equal(2, _source.UnwrapCount);
        Assert.NotSame(first, refreshed);
        Assert.True(((TestDataEncryptionKey)first).IsDisposed);
        Assert.Equal(_source.RawKeys["dek1"], ((TestDataEncryptionKey)refreshed).RawKey);
    }

    [Fact]
    public async Task GetKeyAsync_BeforeRefreshWindow_DoesNotUnwrapAgain()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache();
        await cache.GetKeyAsync("dek1", Mde, Ct);

        _time.Advance(TimeSpan.FromMinutes(54));
        await cache.GetKeyAsync("dek1", Mde, Ct);

        Assert.Null(cache.GetLoadInFlight("dek1", Mde));
        Assert.Equal(1, _source.UnwrapCount);
    }

    [Fact]
    public async Task GetKeyAsync_AfterExpiry_UnwrapsAgainAndDisposesTheOldKey()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache();
        DataEncryptionKey first = await cache.GetKeyAsync("dek1", Mde, Ct);

        _time.Advance(TimeSpan.FromMinutes(61));
        DataEncryptionKey second = await cache.GetKeyAsync("dek1", Mde, Ct);

        Assert.NotSame(first, second);
        Assert.True(((TestDataEncryptionKey)first).IsDisposed);
        Assert.False(((TestDataEncryptionKey)second).IsDisposed);
        Assert.Equal(2, _source.UnwrapCount);
    }

    [Fact]
    public async Task GetKeyAsync_ProviderDownBeforeExpiry_KeepsServingAndRetriesAfterInterval()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache();
        DataEncryptionKey first = await cache.GetKeyAsync("dek1", Mde, Ct);
        _source.UnwrapFailure = new HttpRequestException("Key Vault is unreachable.");
        _time.Advance(TimeSpan.FromMinutes(56));

        Assert.Same(first, await cache.GetKeyAsync("dek1", Mde, Ct));
        await AwaitFailedRefreshAsync(cache);
        for (int i = 0; i < 10; i++)
        {
            Assert.Same(first, await cache.GetKeyAsync("dek1", Mde, Ct));
        }

        Assert.Equal(2, _source.UnwrapCount);
        _time.Advance(TimeSpan.FromSeconds(31));
        Assert.Same(first, await cache.GetKeyAsync("dek1", Mde, Ct));
        await AwaitFailedRefreshAsync(cache);

        Assert.Equal(3, _source.UnwrapCount);
        Assert.False(((TestDataEncryptionKey)first).IsDisposed);
    }

    [Fact]
    public async Task GetKeyAsync_ProviderDownAfterExpiry_ThrowsNamingDekAndCauseThenRecovers()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache();
        DataEncryptionKey first = await cache.GetKeyAsync("dek1", Mde, Ct);
        _source.UnwrapFailure = new HttpRequestException("Key Vault is unreachable.");
        _time.Advance(TimeSpan.FromMinutes(61));

        var error = await Assert.ThrowsAsync<EncryptionException>(() => cache.GetKeyAsync("dek1", Mde, Ct).AsTask());

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Equal("dek1", error.DataEncryptionKeyId);
        Assert.Contains("'dek1'", error.Message, StringComparison.Ordinal);
        Assert.Contains("HttpRequestException", error.Message, StringComparison.Ordinal);
        Assert.IsType<HttpRequestException>(error.InnerException);
        Assert.True(((TestDataEncryptionKey)first).IsDisposed);

        _source.UnwrapFailure = null;
        DataEncryptionKey recovered = await cache.GetKeyAsync("dek1", Mde, Ct);

        Assert.Equal(_source.RawKeys["dek1"], ((TestDataEncryptionKey)recovered).RawKey);
    }

    [Fact]
    public async Task GetKeyAsync_UnwrapsToWrongLength_ThrowsKeyUnavailable()
    {
        _source.AddKey("dek1");
        _source.WrongUnwrapLength = 16;
        DekCache cache = CreateCache();

        var error = await Assert.ThrowsAsync<EncryptionException>(() => cache.GetKeyAsync("dek1", Mde, Ct).AsTask());

        Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
        Assert.Equal("dek1", error.DataEncryptionKeyId);
        Assert.Contains("16 bytes", error.Message, StringComparison.Ordinal);
        Assert.Empty(_keys.Created);
    }

    [Fact]
    public async Task GetKeyAsync_UnknownId_ThrowsKeyUnavailableAndKeepsNoEntry()
    {
        DekCache cache = CreateCache();

        for (int i = 0; i < 20; i++)
        {
            var error = await Assert.ThrowsAsync<EncryptionException>(() => cache.GetKeyAsync($"missing{i}", Mde, Ct).AsTask());
            Assert.Equal(EncryptionErrorKind.KeyUnavailable, error.Kind);
            Assert.Equal($"missing{i}", error.DataEncryptionKeyId);
        }

        Assert.Equal(0, cache.EntryCount);
    }

    [Fact]
    public async Task GetKeyAsync_UnknownAlgorithm_ThrowsInvalidOptions()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache();

        var error = await Assert.ThrowsAsync<EncryptionException>(() => cache.GetKeyAsync("dek1", "AES-GCM", Ct).AsTask());

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Equal("dek1", error.DataEncryptionKeyId);
        Assert.Equal(0, _source.ReadCount);
    }

    [Fact]
    public async Task GetKeyAsync_DocumentWithUnknownAlgorithm_ThrowsInvalidOptions()
    {
        _source.AddKey("dek1", encryptionAlgorithm: "SomethingElse");
        DekCache cache = CreateCache();

        var error = await Assert.ThrowsAsync<EncryptionException>(() => cache.GetKeyAsync("dek1", Mde, Ct).AsTask());

        Assert.Equal(EncryptionErrorKind.InvalidOptions, error.Kind);
        Assert.Contains("SomethingElse", error.Message, StringComparison.Ordinal);
        Assert.Equal(0, _source.UnwrapCount);
    }

    [Fact]
    public async Task GetKeyAsync_OtherKnownAlgorithm_ServesTheSameRawKeyAsASeparateKey()
    {
        _source.AddKey("dek1", Mde);
        DekCache cache = CreateCache();

        DataEncryptionKey current = await cache.GetKeyAsync("dek1", Mde, Ct);
        DataEncryptionKey legacy = await cache.GetKeyAsync("dek1", Legacy, Ct);

        Assert.NotSame(current, legacy);
        Assert.Equal(Legacy, legacy.EncryptionAlgorithm);
        Assert.Equal(((TestDataEncryptionKey)current).RawKey, ((TestDataEncryptionKey)legacy).RawKey);
        Assert.Equal(1, _source.ReadCount);
    }

    [Fact]
    public async Task GetKeyAsync_KeyExpiresWhileDocumentIsFresh_ReadsDocumentOnce()
    {
        using var source = new FakeDekSource(TimeSpan.FromMinutes(10));
        source.AddKey("dek1");
        DekCache cache = Track(new DekCache(source, new DekCacheSettings { TimeProvider = _time }, _keys));
        await cache.GetKeyAsync("dek1", Mde, Ct);

        _time.Advance(TimeSpan.FromMinutes(11));
        await cache.GetKeyAsync("dek1", Mde, Ct);
        _time.Advance(TimeSpan.FromMinutes(20));
        await cache.GetKeyAsync("dek1", Mde, Ct);

        Assert.Equal(3, source.UnwrapCount);
        Assert.Equal(2, source.ReadCount);
    }

    [Fact]
    public async Task InvalidateAsync_DisposesKeysAndForgetsTheDocument()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache();
        DataEncryptionKey first = await cache.GetKeyAsync("dek1", Mde, Ct);

        await cache.InvalidateAsync("dek1", replacement: null, Ct);
        DataEncryptionKey second = await cache.GetKeyAsync("dek1", Mde, Ct);

        Assert.True(((TestDataEncryptionKey)first).IsDisposed);
        Assert.NotSame(first, second);
        Assert.Equal(2, _source.UnwrapCount);
        Assert.Equal(2, _source.ReadCount);
    }

    [Fact]
    public async Task InvalidateAsync_WithReplacement_UsesItWithoutReading()
    {
        var replacement = _source.AddKey("dek1");
        DekCache cache = CreateCache();
        await cache.GetKeyAsync("dek1", Mde, Ct);

        await cache.InvalidateAsync("dek1", replacement, Ct);
        await cache.GetKeyAsync("dek1", Mde, Ct);

        Assert.Equal(1, _source.ReadCount);
        Assert.Equal(2, _source.UnwrapCount);
    }

    [Fact]
    public async Task Sweep_AfterExpiry_DisposesKeysNobodyAskedFor()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache();
        DataEncryptionKey first = await cache.GetKeyAsync("dek1", Mde, Ct);

        _time.Advance(TimeSpan.FromMinutes(59));
        Assert.False(((TestDataEncryptionKey)first).IsDisposed);
        _time.Advance(TimeSpan.FromMinutes(2));

        Assert.True(((TestDataEncryptionKey)first).IsDisposed);
        Assert.Equal(0, cache.EntryCount);
    }

    [Fact]
    public async Task Dispose_DisposesCachedKeysAndRefusesFurtherUse()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache();
        DataEncryptionKey first = await cache.GetKeyAsync("dek1", Mde, Ct);

        cache.Dispose();

        Assert.True(((TestDataEncryptionKey)first).IsDisposed);
        await Assert.ThrowsAsync<ObjectDisposedException>(() => cache.GetKeyAsync("dek1", Mde, Ct).AsTask());
    }

    [Fact]
    public async Task Dispose_WhileALoadIsInFlight_FailsTheWaitersAndKeepsNoKey()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache();
        _source.UnwrapGate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task<DataEncryptionKey> waiting = cache.GetKeyAsync("dek1", Mde, Ct).AsTask();
        await _source.UnwrapEntered.WaitAsync(Ct);

        cache.Dispose();
        _source.UnwrapGate.SetResult();

        await Assert.ThrowsAsync<ObjectDisposedException>(() => waiting);
        Assert.All(_keys.Created, key => Assert.True(key.IsDisposed));
    }

    [Fact]
    public async Task GetKeyAsync_OneWaiterCancelled_OthersStillGetTheKey()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache();
        _source.UnwrapGate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var cancel = new CancellationTokenSource();

        Task<DataEncryptionKey> cancelled = cache.GetKeyAsync("dek1", Mde, cancel.Token).AsTask();
        Task<DataEncryptionKey> patient = cache.GetKeyAsync("dek1", Mde, Ct).AsTask();
        await _source.UnwrapEntered.WaitAsync(Ct);
        await cancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => cancelled);
        _source.UnwrapGate.SetResult();

        DataEncryptionKey key = await patient;
        Assert.Equal(_source.RawKeys["dek1"], ((TestDataEncryptionKey)key).RawKey);
        Assert.Equal(1, _source.UnwrapCount);
    }

    [Fact]
    public async Task GetKeyAsync_ZeroTimeToLive_UnwrapsOnEveryUseAndDisposesThePrevious()
    {
        using var source = new FakeDekSource(TimeSpan.Zero);
        source.AddKey("dek1");
        DekCache cache = Track(new DekCache(source, new DekCacheSettings { TimeProvider = _time }, _keys));

        DataEncryptionKey first = await cache.GetKeyAsync("dek1", Mde, Ct);
        DataEncryptionKey second = await cache.GetKeyAsync("dek1", Mde, Ct);

        Assert.Equal(2, source.UnwrapCount);
        Assert.True(((TestDataEncryptionKey)first).IsDisposed);
        Assert.False(((TestDataEncryptionKey)second).IsDisposed);
    }

    [Fact]
    public async Task GetKeyAsync_InfiniteTimeToLive_NeverUnwrapsAgain()
    {
        using var source = new FakeDekSource(Timeout.InfiniteTimeSpan);
        source.AddKey("dek1");
        DekCache cache = Track(new DekCache(source, new DekCacheSettings { TimeProvider = _time, SweepInterval = TimeSpan.FromDays(1) }, _keys));
        DataEncryptionKey first = await cache.GetKeyAsync("dek1", Mde, Ct);

        _time.Advance(TimeSpan.FromDays(3650));

        Assert.Same(first, await cache.GetKeyAsync("dek1", Mde, Ct));
        Assert.Equal(1, source.UnwrapCount);
    }

    private DekCache CreateCache(DekCacheSettings? settings = null) =>
        Track(new DekCache(_source, (settings ?? new DekCacheSettings()) with { TimeProvider = _time }, _keys));

    private DekCache Track(DekCache cache)
    {
        _caches.Add(cache);
        return cache;
    }

    /// <summary>The result of a value task already checked to be complete (reading it cannot block).</summary>
    private static T Completed<T>(ValueTask<T> task) => task.IsCompletedSuccessfully ? task.Result : throw new InvalidOperationException("Not completed.");

    private static async Task AwaitFailedRefreshAsync(DekCache cache)
    {
        Task? refresh = cache.GetLoadInFlight("dek1", Mde);
        if (refresh is not null)
        {
            await Assert.ThrowsAsync<EncryptionException>(() => refresh);
        }
    }
}
