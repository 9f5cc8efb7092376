using System.Diagnostics;
using Encryption.Custom.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Encryption.Custom.Keys.Caching;

/// <summary>Loads: single flight per DEK and algorithm, run on the thread pool, installed under the entry's lock.</summary>
internal sealed partial class DekCache
{
    /// <summary>Starts a refresh of a key that is still valid, unless one is already running. Allocation only when it starts.</summary>
    private void StartBackgroundRefresh(DekCacheEntry entry, int slot)
    {
        if (entry.Keys[slot].Load is not null)
        {
            return;
        }

        KeyLoad? load;
        lock (entry.Gate)
        {
            DekCacheEntry.KeySlot keySlot = entry.Keys[slot];
            KeySnapshot? current = keySlot.Current;
            if (entry.Removed || keySlot.Load is not null || (current is not null && Now() < current.RefreshAt))
            {
                // Removed, already loading, or another caller refreshed the key between our lookup and the lock.
                return;
            }

            load = StartKeyLoad(entry, slot, background: true);
        }

        // Nobody awaits a background refresh: observe its failure so it is not reported as unobserved.
        load.Task.ContinueWith(static task => _ = task.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }

    /// <summary>
    /// Under the entry's lock: a lease on the current key if it is still valid; otherwise the load in flight (or a
    /// new one) with this caller counted as its waiter. Null with a default lease when the entry was removed.
    /// </summary>
    private KeyLoad? TryLeaseOrJoinLoad(DekCacheEntry entry, int slot, out DataEncryptionKeyLease lease)
    {
        lease = default;
        lock (entry.Gate)
        {
            if (entry.Removed)
            {
                return null;
            }

            // A key that is current under the lock was not retired, so its owner's reference holds and the lease succeeds.
            DekCacheEntry.KeySlot keySlot = entry.Keys[slot];
            if (keySlot.Current is { } current && Now() < current.ExpiresAt && DataEncryptionKeyLease.TryAcquire(current.Key, out lease))
            {
                return null;
            }

            KeyLoad load = keySlot.Load ?? StartKeyLoad(entry, slot, background: false);
            load.Waiters++;
            return load;
        }
    }

    /// <summary>Waits for a load this caller joined; the reference the load reserved for it becomes its lease.</summary>
    private static async ValueTask<DataEncryptionKeyLease> WaitForLoadAsync(DekCacheEntry entry, KeyLoad load, CancellationToken cancellationToken)
    {
        try
        {
            KeySnapshot snapshot = await load.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
            return DataEncryptionKeyLease.Adopt(snapshot.Key);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            LeaveLoad(entry, load);
            throw;
        }
    }

    /// <summary>A waiter that gave up: uncount it while the load runs, or give back the reference the load reserved for it.</summary>
    private static void LeaveLoad(DekCacheEntry entry, KeyLoad load)
    {
        DataEncryptionKey? reserved;
        lock (entry.Gate)
        {
            if (!load.Completed)
            {
                load.Waiters--;
                return;
            }

            reserved = load.GrantedKey;
        }

        reserved?.ReleaseReference();
    }

    /// <summary>Registers a new load for the slot and queues it. Call under the entry's lock.</summary>
    /// <param name="entry">The DEK's entry.</param>
    /// <param name="slot">The algorithm's slot.</param>
    /// <param name="background">A refresh of a key that is still valid (nobody waits for it), not a miss.</param>
    private KeyLoad StartKeyLoad(DekCacheEntry entry, int slot, bool background)
    {
        var load = new KeyLoad();
        entry.Keys[slot].Load = load;

        // On the thread pool, without the caller's execution context: a hot-path caller returns at once, and
        // the provider call does not inherit the caller's ambient state, except the one thing that must follow
        // it: the trace. A load is a child of the request that missed; a background refresh outlives the request
        // that noticed the expiry, so it is a root linked to it (DekCacheTracing).
        ThreadPool.UnsafeQueueUserWorkItem(
            static state => _ = state.Cache.RunKeyLoadAsync(state.Entry, state.Slot, state.Load, state.Trigger, state.Background),
            (Cache: this, Entry: entry, Slot: slot, Load: load, Trigger: Activity.Current, Background: background),
            preferLocal: false);
        return load;
    }

    private async Task RunKeyLoadAsync(DekCacheEntry entry, int slot, KeyLoad load, Activity? trigger, bool background)
    {
        KeySnapshot? loaded = null;
        Exception? failure = null;
        using (Activity? activity = DekCacheTracing.StartLoad(entry.Id, trigger, background))
        {
            try
            {
                loaded = await LoadKeyAsync(entry, slot).ConfigureAwait(false);
            }
            catch (Exception exception)
            {
                failure = exception;
                DekCacheTracing.Fail(activity, exception);
            }
        }

        LogLoad(entry.Id, loaded, failure, background);
        CompleteKeyLoad(entry, slot, load, loaded, failure);
    }

    private void LogLoad(string id, KeySnapshot? loaded, Exception? failure, bool background)
    {
        ILogger logger = _settings.Logger;
        if (failure is not null)
        {
            if (IsDisposal(failure))
            {
                return;
            }

            string errorType = ErrorTypes.Classify(failure);
            if (background)
            {
                EncryptionLog.DataEncryptionKeyRefreshFailed(logger, id, errorType, _settings.RefreshRetryInterval, failure);
            }
            else
            {
                EncryptionLog.DataEncryptionKeyLoadFailed(logger, id, errorType, failure);
            }
        }
        else if (logger.IsEnabled(LogLevel.Information))
        {
            TimeSpan cachedFor = loaded!.ExpiresAt == long.MaxValue
                ? Timeout.InfiniteTimeSpan
                : TimeSpan.FromSeconds((loaded.ExpiresAt - Now()) / _ticksPerSecond);
            if (background)
            {
                EncryptionLog.DataEncryptionKeyRefreshed(logger, id, cachedFor);
            }
            else
            {
                EncryptionLog.DataEncryptionKeyLoaded(logger, id, cachedFor);
            }
        }
    }

    private async Task<KeySnapshot> LoadKeyAsync(DekCacheEntry entry, int slot)
    {
        string id = entry.Id;
        DataEncryptionKeyProperties properties = await GetPropertiesAsync(id, _disposed.Token).ConfigureAwait(false);
        if (GetSlot(properties.EncryptionAlgorithm) < 0)
        {
            // The raw key serves both known algorithms; a document naming neither is not one we can trust.
            throw KeyErrors.UnsupportedAlgorithm(id, properties.EncryptionAlgorithm);
        }

        EncryptionKeyUnwrapResult result;
        try
        {
            result = await _source.UnwrapAsync(properties, _disposed.Token).ConfigureAwait(false);
            EncryptionTelemetry.RecordKeyUnwrap(succeeded: true);
        }
        catch (Exception exception) when (!IsDisposal(exception))
        {
            EncryptionTelemetry.RecordKeyUnwrap(succeeded: false);
            throw KeyErrors.UnwrapFailed(id, exception);
        }

        using (result)
        {
            int length = result.DataEncryptionKey.Length;
            if (length != KeyErrors.RawKeyLength)
            {
                throw KeyErrors.WrongLength(id, length);
            }

            long now = Now();
            TimeSpan timeToLive = result.ClientCacheTimeToLive;
            long expiresAt = Deadline(now, timeToLive);
            long refreshAt = RefreshPoint(now, expiresAt, timeToLive);
            DataEncryptionKey key = _keyFactory.Create(result.KeySpan, GetAlgorithm(slot));
            return new KeySnapshot(key, refreshAt, expiresAt);
        }
    }

    /// <summary>Refresh <see cref="DekCacheSettings.RefreshBeforeExpiry"/> before expiry, but never in the first half of the lifetime.</summary>
    private long RefreshPoint(long now, long expiresAt, TimeSpan timeToLive)
    {
        if (expiresAt == long.MaxValue)
        {
            return long.MaxValue;
        }

        TimeSpan half = timeToLive / 2;
        TimeSpan window = _settings.RefreshBeforeExpiry < half ? _settings.RefreshBeforeExpiry : half;
        return Math.Max(now, expiresAt - (long)(window.TotalSeconds * _ticksPerSecond));
    }

    private void CompleteKeyLoad(DekCacheEntry entry, int slot, KeyLoad load, KeySnapshot? loaded, Exception? failure)
    {
        DataEncryptionKey? evicted = null;
        lock (entry.Gate)
        {
            DekCacheEntry.KeySlot keySlot = entry.Keys[slot];
            keySlot.Load = null;
            load.Completed = true;
            KeySnapshot? current = keySlot.Current;
            if (_disposed.IsCancellationRequested)
            {
                // Whatever the load achieved, a disposed cache hands out nothing and keeps nothing.
                evicted = loaded?.Key;
                loaded = null;
                // Named after the public object the caller disposed, not this internal cache.
                failure = new ObjectDisposedException(typeof(CosmosDataEncryptionKeyProvider).FullName, "The data encryption key provider was disposed while the key was loading.");
            }
            else if (loaded is not null)
            {
                // One reference per waiter, taken before the key becomes current (nothing can retire it before that).
                for (int i = 0; i < load.Waiters; i++)
                {
                    bool added = loaded.Key.TryAddReference();
                    Debug.Assert(added, "A key that was never handed out cannot have been disposed.");
                }

                load.GrantedKey = loaded.Key;
                evicted = current?.Key;
                keySlot.Current = loaded;
            }
            else
            {
                long now = Now();
                if (current is not null && now < current.ExpiresAt)
                {
                    // A background refresh failed: keep serving the valid key and try again a little later.
                    long retryAt = Math.Min(Deadline(now, _settings.RefreshRetryInterval), current.ExpiresAt);
                    keySlot.Current = new KeySnapshot(current.Key, retryAt, current.ExpiresAt);
                }
                else if (current is not null)
                {
                    evicted = current.Key;
                    keySlot.Current = null;
                }

                RemoveIfIdle(entry);
            }
        }

        // The cache's reference goes; leases on the evicted key keep it until they end.
        evicted?.Dispose();
        if (loaded is not null)
        {
            load.SetResult(loaded);
        }
        else
        {
            load.SetException(failure!);
        }
    }

    /// <summary>The document load in flight, a new one, or the cached document; null if the entry was removed.</summary>
    private Task<DataEncryptionKeyProperties>? GetOrStartPropertiesLoad(DekCacheEntry entry)
    {
        TaskCompletionSource<DataEncryptionKeyProperties> load;
        int generation;
        lock (entry.Gate)
        {
            if (entry.Removed)
            {
                return null;
            }

            if (entry.Properties is { } snapshot && Now() < snapshot.ExpiresAt)
            {
                return Task.FromResult(snapshot.Properties);
            }

            if (entry.PropertiesLoad is { } inFlight)
            {
                return inFlight.Task;
            }

            load = new TaskCompletionSource<DataEncryptionKeyProperties>(TaskCreationOptions.RunContinuationsAsynchronously);
            entry.PropertiesLoad = load;
            generation = entry.Generation;
        }

        _ = RunPropertiesLoadAsync(entry, load, generation);
        return load.Task;
    }

    private async Task RunPropertiesLoadAsync(DekCacheEntry entry, TaskCompletionSource<DataEncryptionKeyProperties> load, int generation)
    {
        DataEncryptionKeyProperties? properties = null;
        Exception? failure = null;
        try
        {
            properties = await ReadDistributedAsync(entry.Id).ConfigureAwait(false);
            if (properties is null)
            {
                properties = await ReadFromSourceAsync(entry.Id).ConfigureAwait(false);
                await WriteDistributedAsync(properties).ConfigureAwait(false);
            }
        }
        catch (Exception exception)
        {
            failure = exception;
        }

        lock (entry.Gate)
        {
            entry.PropertiesLoad = null;
            if (properties is not null && entry.Generation == generation && !_disposed.IsCancellationRequested)
            {
                entry.Properties = new PropertiesSnapshot(properties, Deadline(Now(), _settings.PropertiesTimeToLive));
            }
            else if (failure is not null)
            {
                RemoveIfIdle(entry);
            }
        }

        if (failure is null)
        {
            load.SetResult(properties!);
        }
        else
        {
            load.SetException(failure);
        }
    }

    private async Task<DataEncryptionKeyProperties> ReadFromSourceAsync(string id)
    {
        try
        {
            return await _source.ReadPropertiesAsync(id, _disposed.Token).ConfigureAwait(false);
        }
        catch (EncryptionException exception) when (string.Equals(exception.DataEncryptionKeyId, id, StringComparison.Ordinal))
        {
            throw;
        }
        catch (Exception exception) when (!IsDisposal(exception))
        {
            throw KeyErrors.ReadFailed(id, exception);
        }
    }

    private bool IsDisposal(Exception exception) => exception is OperationCanceledException && _disposed.IsCancellationRequested;
}
