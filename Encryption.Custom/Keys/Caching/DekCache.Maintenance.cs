using Encryption.Custom.Keys.Cosmos;
using Microsoft.Extensions.Caching.Distributed;

namespace Encryption.Custom.Keys.Caching;

/// <summary>Second level, invalidation, the expiry sweep and disposal.</summary>
internal sealed partial class DekCache
{
    /// <summary>
    /// Forgets everything cached for <paramref name="id"/> (unwrapped keys are disposed), then caches
    /// <paramref name="replacement"/> in both levels when given, or removes the id from the second level.
    /// </summary>
    public async Task InvalidateAsync(string id, DataEncryptionKeyProperties? replacement, CancellationToken cancellationToken)
    {
        List<DataEncryptionKey>? evicted = null;
        while (replacement is null ? _entries.TryGetValue(id, out DekCacheEntry? entry) : (entry = _entries.GetOrAdd(id, s_createEntry)) is not null)
        {
            lock (entry.Gate)
            {
                if (entry.Removed)
                {
                    // Swept away between the lookup and the lock: a new entry may hold the id now.
                    continue;
                }

                entry.Generation++;
                entry.Properties = replacement is null
                    ? null
                    : new PropertiesSnapshot(replacement, Deadline(Now(), _settings.PropertiesTimeToLive));
                foreach (DekCacheEntry.KeySlot slot in entry.Keys)
                {
                    if (slot.Current is { } snapshot)
                    {
                        (evicted ??= []).Add(snapshot.Key);
                        slot.Current = null;
                    }
                }

                RemoveIfIdle(entry);
            }

            break;
        }

        if (evicted is not null)
        {
            foreach (DataEncryptionKey key in evicted)
            {
                key.Dispose();
            }
        }

        if (_settings.DistributedCache is { } cache)
        {
            try
            {
                if (replacement is null)
                {
                    await cache.RemoveAsync(DistributedKey(id), cancellationToken).ConfigureAwait(false);
                }
                else
                {
                    await WriteDistributedAsync(replacement).ConfigureAwait(false);
                }
            }
            catch (Exception exception) when (exception is not OperationCanceledException)
            {
                // The second level is only a cache; its entry expires on its own.
            }
        }
    }

    /// <summary>Disposes expired keys and drops expired documents, so nothing outlives its time to live for long.</summary>
    internal void Sweep()
    {
        if (_disposed.IsCancellationRequested)
        {
            return;
        }

        long now = Now();
        List<DataEncryptionKey>? evicted = null;
        foreach (DekCacheEntry entry in _entries.Values)
        {
            lock (entry.Gate)
            {
                foreach (DekCacheEntry.KeySlot slot in entry.Keys)
                {
                    if (slot.Current is { } snapshot && now >= snapshot.ExpiresAt && slot.Load is null)
                    {
                        (evicted ??= []).Add(snapshot.Key);
                        slot.Current = null;
                    }
                }

                if (entry.Properties is { } properties && now >= properties.ExpiresAt)
                {
                    entry.Properties = null;
                }

                RemoveIfIdle(entry);
            }
        }

        if (evicted is not null)
        {
            foreach (DataEncryptionKey key in evicted)
            {
                key.Dispose();
            }
        }
    }

    /// <summary>Stops the sweep and disposes every cached key; loads in flight fail with <see cref="ObjectDisposedException"/>.</summary>
    public void Dispose()
    {
        if (_disposed.IsCancellationRequested)
        {
            return;
        }

        _disposed.Cancel();
        _sweepTimer.Dispose();
        foreach (DekCacheEntry entry in _entries.Values)
        {
            lock (entry.Gate)
            {
                foreach (DekCacheEntry.KeySlot slot in entry.Keys)
                {
                    slot.Current?.Key.Dispose();
                    slot.Current = null;
                }

                entry.Properties = null;
            }
        }

        _entries.Clear();
    }

    /// <summary>How many DEK ids have an entry (for tests: unknown ids must not accumulate).</summary>
    internal int EntryCount => _entries.Count;

    /// <summary>The key load in flight for an id and algorithm, if any (for tests that wait for a background refresh).</summary>
    internal Task? GetLoadInFlight(string id, string encryptionAlgorithm)
    {
        if (!_entries.TryGetValue(id, out DekCacheEntry? entry))
        {
            return null;
        }

        lock (entry.Gate)
        {
            return entry.Keys[GetSlot(encryptionAlgorithm)].Load?.Task;
        }
    }

    /// <summary>Removes an entry that holds nothing, so ids that were never found do not accumulate. Call under the entry's lock.</summary>
    private void RemoveIfIdle(DekCacheEntry entry)
    {
        if (!entry.Removed && entry.IsIdle)
        {
            entry.Removed = true;
            _entries.TryRemove(new KeyValuePair<string, DekCacheEntry>(entry.Id, entry));
        }
    }

    private string DistributedKey(string id) => _settings.DistributedCacheKeyPrefix + id;

    private async Task<DataEncryptionKeyProperties?> ReadDistributedAsync(string id)
    {
        if (_settings.DistributedCache is not { } cache)
        {
            return null;
        }

        try
        {
            byte[]? document = await cache.GetAsync(DistributedKey(id), _disposed.Token).ConfigureAwait(false);
            if (document is null)
            {
                return null;
            }

            DataEncryptionKeyProperties properties = DataEncryptionKeyPropertiesSerializer.Read(document, id);
            return string.Equals(properties.Id, id, StringComparison.Ordinal) ? properties : null;
        }
        catch (Exception exception) when (!IsDisposal(exception))
        {
            // The second level is only a cache: an outage or a bad entry falls through to the container.
            return null;
        }
    }

    private async Task WriteDistributedAsync(DataEncryptionKeyProperties properties)
    {
        if (_settings.DistributedCache is not { } cache)
        {
            return;
        }

        try
        {
            byte[] document = DataEncryptionKeyPropertiesSerializer.ToUtf8Bytes(properties, includeSystemProperties: true);
            var options = new DistributedCacheEntryOptions { AbsoluteExpirationRelativeToNow = _settings.DistributedCacheEntryLifetime };
            await cache.SetAsync(DistributedKey(properties.Id), document, options, _disposed.Token).ConfigureAwait(false);
        }
        catch (Exception exception) when (!IsDisposal(exception))
        {
            // A failed second-level write costs a container read elsewhere, nothing more.
        }
    }
}
