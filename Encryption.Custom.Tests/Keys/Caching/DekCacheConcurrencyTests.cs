using Encryption.Custom.Keys;
using Encryption.Custom.Keys.Caching;
using Encryption.Custom.Tests.Keys.TestSupport;
using Microsoft.Extensions.Time.Testing;

namespace Encryption.Custom.Tests.Keys.Caching;

public sealed class DekCacheConcurrencyTests : IDisposable
{
    private const string Mde = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;
    private const string Legacy = CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized;

    private readonly FakeTimeProvider _time = new(TestClock.Start);
    private readonly FakeDekSource _source = new(TimeSpan.FromMinutes(20));
    private readonly TestKeyFactory _keys = new();

    // Calls the four callers make, together, between two steps of the fake clock.
    private const int CallsPerMinute = 16;

    public void Dispose() => _source.Dispose();

    [Fact]
    public async Task GetKeyAsync_ManyCallersWhileTimePasses_ServeOnlyRightKeysAndLeakNone()
    {
        string[] ids = ["a", "b", "c", "d"];
        foreach (string id in ids)
        {
            _source.AddKey(id);
        }

        var cache = new DekCache(_source, new DekCacheSettings { TimeProvider = _time, RefreshBeforeExpiry = TimeSpan.FromMinutes(4) }, _keys);
        using var stop = new CancellationTokenSource();
        int served = 0;

        Task[] callers = Enumerable.Range(0, 4).Select(worker => Task.Run(async () =>
        {
            var random = new Random(worker);
            for (int call = 0; !stop.IsCancellationRequested; call++)
            {
                if (call % 64 == 0)
                {
                    // Leave the (two-core) machine's thread pool room for the clock and the loads.
                    await Task.Yield();
                }

                string id = ids[random.Next(ids.Length)];
                string algorithm = random.Next(4) == 0 ? Legacy : Mde;
                var key = (TestDataEncryptionKey)await cache.GetKeyAsync(id, algorithm, CancellationToken.None);
                Assert.Equal(algorithm, key.EncryptionAlgorithm);

                // A key may be evicted right after it was handed out (users lease it); if not yet, it must be the right one.
                byte[] raw = key.RawKey;
                Assert.True(raw.Length == 0 || raw.AsSpan().SequenceEqual(_source.RawKeys[id]), $"wrong key for {id}");
                Interlocked.Increment(ref served);
            }
        })).ToArray();

        // The clock moves on only after the callers made progress (a number of calls per minute, not calls per
        // wall-clock second), so a loaded machine makes the test slower, never wrong. The deadline only stops a hang.
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        deadline.CancelAfter(TimeSpan.FromMinutes(2));
        for (int minute = 0; minute < 120; minute++)
        {
            _time.Advance(TimeSpan.FromMinutes(1));
            int target = (minute + 1) * CallsPerMinute;
            while (Volatile.Read(ref served) < target)
            {
                await Task.Delay(1, deadline.Token);
            }
        }

        await stop.CancelAsync();
        await Task.WhenAll(callers);
        await WaitForLoadsAsync(cache, ids);
        cache.Dispose();

        Assert.Equal(_source.UnwrapCount, _keys.Created.Count);
        Assert.All(_keys.Created, key => Assert.True(key.IsDisposed, "a key outlived the cache"));

        // 120 minutes of 20-minute keys, 4 DEKs, 2 algorithms: about 6 unwraps per slot, not one per call.
        Assert.InRange(_source.UnwrapCount, 8, 8 * 12);
    }

    private static async Task WaitForLoadsAsync(DekCache cache, string[] ids)
    {
        foreach (string id in ids)
        {
            foreach (string algorithm in new[] { Mde, Legacy })
            {
                while (cache.GetLoadInFlight(id, algorithm) is { } load)
                {
                    await load;
                }
            }
        }
    }
}
