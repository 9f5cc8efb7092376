using Encryption.Custom.Keys;
using Encryption.Custom.Keys.Caching;
using Encryption.Custom.Tests.Keys.TestSupport;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.Caching.Memory;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;

namespace Encryption.Custom.Tests.Keys.Caching;

public sealed class DekCacheDistributedTests : IDisposable
{
    private const string Mde = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    private readonly FakeTimeProvider _time = new(TestClock.Start);
    private readonly FakeDekSource _source = new(TimeSpan.FromHours(1));
    private readonly TestKeyFactory _keys = new();
    private readonly MemoryDistributedCache _distributed = new(Options.Create(new MemoryDistributedCacheOptions()));
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
    public async Task GetKeyAsync_SecondProcess_TakesDocumentFromDistributedCache()
    {
        _source.AddKey("dek1");
        DekCache first = CreateCache(_distributed);
        await first.GetKeyAsync("dek1", Mde, Ct);
        Assert.Equal(1, _source.ReadCount);

        // A second process: its container is unreachable, but the shared cache has the document.
        DekCache second = CreateCache(_distributed);
        _source.ReadFailure = new InvalidOperationException("The container must not be read.");
        DataEncryptionKey key = await second.GetKeyAsync("dek1", Mde, Ct);

        Assert.Equal(1, _source.ReadCount);
        Assert.Equal(_source.RawKeys["dek1"], ((TestDataEncryptionKey)key).RawKey);
    }

    [Fact]
    public async Task GetKeyAsync_DistributedEntry_HoldsOnlyTheWrappedKey()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache(_distributed);
        await cache.GetKeyAsync("dek1", Mde, Ct);

        byte[]? entry = await _distributed.GetAsync("test:dek1", Ct);

        Assert.NotNull(entry);
        string text = System.Text.Encoding.UTF8.GetString(entry);
        byte[] raw = _source.RawKeys["dek1"];
        Assert.Contains("\"wrappedDataEncryptionKey\"", text, StringComparison.Ordinal);
        Assert.Equal(-1, entry.AsSpan().IndexOf(raw));
        Assert.DoesNotContain(Convert.ToBase64String(raw), text, StringComparison.Ordinal);
        Assert.DoesNotContain(Convert.ToHexString(raw), text, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public async Task GetKeyAsync_DistributedCacheFails_FallsBackToTheContainer()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache(new FailingDistributedCache());

        DataEncryptionKey key = await cache.GetKeyAsync("dek1", Mde, Ct);

        Assert.Equal(_source.RawKeys["dek1"], ((TestDataEncryptionKey)key).RawKey);
        Assert.Equal(1, _source.ReadCount);
    }

    [Fact]
    public async Task GetKeyAsync_CorruptDistributedEntry_IsIgnored()
    {
        _source.AddKey("dek1");
        await _distributed.SetAsync("test:dek1", "{\"id\":\"dek1\"}"u8.ToArray(), Ct);
        DekCache cache = CreateCache(_distributed);

        DataEncryptionKey key = await cache.GetKeyAsync("dek1", Mde, Ct);

        Assert.Equal(_source.RawKeys["dek1"], ((TestDataEncryptionKey)key).RawKey);
        Assert.Equal(1, _source.ReadCount);
    }

    [Fact]
    public async Task InvalidateAsync_WithoutReplacement_RemovesTheDistributedEntry()
    {
        _source.AddKey("dek1");
        DekCache cache = CreateCache(_distributed);
        await cache.GetKeyAsync("dek1", Mde, Ct);

        await cache.InvalidateAsync("dek1", replacement: null, Ct);

        Assert.Null(await _distributed.GetAsync("test:dek1", Ct));
    }

    private DekCache CreateCache(IDistributedCache distributed)
    {
        var cache = new DekCache(
            _source,
            new DekCacheSettings { TimeProvider = _time, DistributedCache = distributed, DistributedCacheKeyPrefix = "test:" },
            _keys);
        _caches.Add(cache);
        return cache;
    }

    private sealed class FailingDistributedCache : IDistributedCache
    {
        public byte[]? Get(string key) => throw new TimeoutException("cache down");

        public Task<byte[]?> GetAsync(string key, CancellationToken token = default) => throw new TimeoutException("cache down");

        public void Refresh(string key) => throw new TimeoutException("cache down");

        public Task RefreshAsync(string key, CancellationToken token = default) => throw new TimeoutException("cache down");

        public void Remove(string key) => throw new TimeoutException("cache down");

        public Task RemoveAsync(string key, CancellationToken token = default) => throw new TimeoutException("cache down");

        public void Set(string key, byte[] value, DistributedCacheEntryOptions options) => throw new TimeoutException("cache down");

        public Task SetAsync(string key, byte[] value, DistributedCacheEntryOptions options, CancellationToken token = default) => throw new TimeoutException("cache down");
    }
}
