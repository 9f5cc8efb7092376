using System.Collections.Concurrent;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using Encryption.Custom.Diagnostics;

namespace Encryption.Custom.Keys.Caching;

/// <summary>
/// Caches DEK documents (with a fixed time to live) and unwrapped keys (with the key-wrap provider's time to
/// live), the latter only as protected <see cref="DataEncryptionKey"/>s, handed out as <see cref="DataEncryptionKeyLease"/>s.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>Ownership: the cache holds the owner's reference of each key it caches and disposes it when the key is
/// replaced, expires, is invalidated or the cache is disposed; every caller gets a lease of its own, so the key is
/// released only when the last operation using it ends. Eviction never fails an operation.</item>
/// <item>Hit: one dictionary lookup, one timestamp, one interlocked lease, no allocation, no lock.</item>
/// <item>Near expiry (<see cref="DekCacheSettings.RefreshBeforeExpiry"/>): the cached key is returned and one
/// background refresh starts, so callers do not wait while the provider is healthy.</item>
/// <item>Miss or expired: one load per DEK and algorithm at a time (single flight); callers wait on it with their
/// own cancellation token, and the load itself is not cancelled by any one caller.</item>
/// <item>Provider outage: a cached key keeps working until it expires; then callers get an
/// <see cref="EncryptionException"/> naming the DEK and the cause; the next call tries again.</item>
/// </list>
/// </remarks>
internal sealed partial class DekCache : IDisposable
{
    private static readonly Func<string, DekCacheEntry> s_createEntry = static id => new DekCacheEntry(id);

    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private readonly ConcurrentDictionary<string, DekCacheEntry> _entries = new(StringComparer.Ordinal);
    private readonly DekCacheSource _source;
    private readonly DekCacheSettings _settings;
    private readonly DataEncryptionKeyFactory _keyFactory;
    private readonly TimeProvider _time;
    private readonly bool _systemClock;
    private readonly double _ticksPerSecond;
    private readonly CancellationTokenSource _disposed = new();
    private readonly ITimer _sweepTimer;

    public DekCache(DekCacheSource source, DekCacheSettings settings, DataEncryptionKeyFactory keyFactory)
    {
        _source = source;
        _settings = settings;
        _keyFactory = keyFactory;
        _time = settings.TimeProvider;

        // With the system clock, Environment.TickCount64 (milliseconds) is far cheaper on the hit path than a
        // Stopwatch read; any other TimeProvider (tests) is honoured exactly.
        _systemClock = ReferenceEquals(_time, TimeProvider.System);
        _ticksPerSecond = _systemClock ? 1000d : _time.TimestampFrequency;
        _sweepTimer = _time.CreateTimer(static state => ((DekCache)state!).Sweep(), this, settings.SweepInterval, settings.SweepInterval);
    }

    /// <summary>Leases the unwrapped key for <paramref name="id"/> and <paramref name="encryptionAlgorithm"/>; the caller disposes the lease.</summary>
    /// <exception cref="EncryptionException">Unknown algorithm, unknown DEK, unwrap failure (see <see cref="KeyErrors"/>).</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled while waiting.</exception>
    /// <exception cref="ObjectDisposedException">The cache was disposed.</exception>
    public ValueTask<DataEncryptionKeyLease> LeaseKeyAsync(string id, string encryptionAlgorithm, CancellationToken cancellationToken)
    {
        int slot = GetSlot(encryptionAlgorithm);
        if (slot < 0)
        {
            KeyErrors.ThrowUnsupportedAlgorithm(id, encryptionAlgorithm);
        }

        if (_entries.TryGetValue(id, out DekCacheEntry? entry) && entry.Keys[slot].Current is { } snapshot)
        {
            long now = Now();

            // The lease fails only if the snapshot was retired (and its key disposed) since it was read: then it is
            // no longer current, and the slow path looks again under the entry's lock.
            if (now < snapshot.ExpiresAt && DataEncryptionKeyLease.TryAcquire(snapshot.Key, out DataEncryptionKeyLease lease))
            {
                EncryptionTelemetry.RecordKeyCacheHit();
                if (now >= snapshot.RefreshAt)
                {
                    StartBackgroundRefresh(entry, slot);
                }

                return new ValueTask<DataEncryptionKeyLease>(lease);
            }
        }

        EncryptionTelemetry.RecordKeyCacheMiss();
        return LeaseKeySlowAsync(id, slot, cancellationToken);
    }

    /// <summary>Gets the DEK document through the cache levels (memory, distributed cache, then the source).</summary>
    /// <exception cref="EncryptionException">Unknown DEK or invalid document.</exception>
    public async ValueTask<DataEncryptionKeyProperties> GetPropertiesAsync(string id, CancellationToken cancellationToken)
    {
        while (true)
        {
            DekCacheEntry entry = _entries.GetOrAdd(id, s_createEntry);
            if (entry.Properties is { } snapshot && Now() < snapshot.ExpiresAt)
            {
                return snapshot.Properties;
            }

            Task<DataEncryptionKeyProperties>? load = GetOrStartPropertiesLoad(entry);
            if (load is not null)
            {
                return await load.WaitAsync(cancellationToken).ConfigureAwait(false);
            }
        }
    }

    /// <summary>The slot of an algorithm, or -1 when the library does not know it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static int GetSlot(string encryptionAlgorithm)
    {
        if (string.Equals(encryptionAlgorithm, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, StringComparison.Ordinal))
        {
            return 0;
        }

        return string.Equals(encryptionAlgorithm, CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized, StringComparison.Ordinal) ? 1 : -1;
    }

    private static string GetAlgorithm(int slot) =>
        slot == 0 ? CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized : CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized;

    private async ValueTask<DataEncryptionKeyLease> LeaseKeySlowAsync(string id, int slot, CancellationToken cancellationToken)
    {
        // Named after the public object the caller disposed, not this internal cache.
        ObjectDisposedException.ThrowIf(_disposed.IsCancellationRequested, typeof(CosmosDataEncryptionKeyProvider));
        while (true)
        {
            DekCacheEntry entry = _entries.GetOrAdd(id, s_createEntry);
            if (TryLeaseOrJoinLoad(entry, slot, out DataEncryptionKeyLease lease) is { } load)
            {
                return await WaitForLoadAsync(entry, load, cancellationToken).ConfigureAwait(false);
            }

            if (lease.Key is not null)
            {
                return lease;
            }

            // The entry was swept away between the lookup and the lock: look it up again.
        }
    }

    /// <summary>The cache's monotonic clock, in ticks of <see cref="_ticksPerSecond"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private long Now() => _systemClock ? Environment.TickCount64 : _time.GetTimestamp();

    /// <summary>Deadline <paramref name="timeToLive"/> after <paramref name="now"/>, saturating; infinite stays infinite.</summary>
    private long Deadline(long now, TimeSpan timeToLive)
    {
        if (timeToLive == Timeout.InfiniteTimeSpan || timeToLive == TimeSpan.MaxValue)
        {
            return long.MaxValue;
        }

        double ticks = timeToLive.TotalSeconds * _ticksPerSecond;
        return ticks >= long.MaxValue - (double)now ? long.MaxValue : now + (long)ticks;
    }
}
