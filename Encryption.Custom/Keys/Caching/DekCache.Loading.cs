using System.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Encryption.Custom.Keys.Caching;

/// <summary>Loads: single flight per DEK and algorithm, run on the thread pool, installed under the entry's lock.</summary>
internal sealed partial class DekCache
{
    /// <summary>Starts a refresh of a key that is still valid, unless one is already running. Allocation only when it starts.</summary>
    private void StartBackgroundRefresh(DekCacheEntry entry, int slot)
    {
        if (entry.Keys[slot].Load is null)
        {
            Task<KeySnapshot>? load = GetOrStartKeyLoad(entry, slot, background: true);

            // Nobody awaits a background refresh: observe its failure so it is not reported as unobserved.
            load?.ContinueWith(static task => _ = task.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        }
    }

    /// <summary>The load in flight for the slot, a new one, or the key another caller just installed; null if the entry was removed.</summary>
    private Task<KeySnapshot>? GetOrStartKeyLoad(DekCacheEntry entry, int slot, bool background)
    {
        TaskCompletionSource<KeySnapshot> load;
        lock (entry.Gate)
        {
            if (entry.Removed)
            {
                return null;
            }

            DekCacheEntry.KeySlot keySlot = entry.Keys[slot];
            if (keySlot.Load is { } inFlight)
            {
                return inFlight.Task;
            }

            KeySnapshot? current = keySlot.Current;
            long now = Now();
            if (current is not null && now < (background ? current.RefreshAt : current.ExpiresAt))
            {
                // Another caller refreshed or loaded the key between our lookup and the lock.
                return Task.FromResult(current);
            }

            load = new TaskCompletionSource<KeySnapshot>(TaskCreationOptions.RunContinuationsAsynchronously);
            keySlot.Load = load;
        }

        // On the thread pool, without the caller's execution context: a hot-path caller returns at once, and
        // the provider call does not inherit the caller's ambient state, except the one thing that must follow
        // it: the trace. A load is a child of the request that missed; a background refresh outlives the request
        // that noticed the expiry, so it is a root linked to it (DekCacheTracing).
        ThreadPool.UnsafeQueueUserWorkItem(
            static state => _ = state.Cache.RunKeyLoadAsync(state.Entry, state.Slot, state.Load, state.Trigger, state.Background),
            (Cache: this, Entry: entry, Slot: slot, Load: load, Trigger: Activity.Current, Background: background),
            preferLocal: false);
        return load.Task;
    }

    private async Task RunKeyLoadAsync(DekCacheEntry entry, int slot, TaskCompletionSource<KeySnapshot> load, Activity? trigger, bool background)
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

            string errorType = EncryptionTelemetry.ClassifyError(failure);
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

    private void CompleteKeyLoad(DekCacheEntry entry, int slot, TaskCompletionSource<KeySnapshot> load, KeySnapshot? loaded, Exception? failure)
    {
        DataEncryptionKey? evicted = null;
        lock (entry.Gate)
        {
            DekCacheEntry.KeySlot keySlot = entry.Keys[slot];
            keySlot.Load = null;
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
