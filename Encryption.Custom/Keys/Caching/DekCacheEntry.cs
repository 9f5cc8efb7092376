using System.Diagnostics;

namespace Encryption.Custom.Keys.Caching;

/// <summary>
/// Everything cached for one DEK id: its document and one unwrapped key per algorithm. Snapshots are read
/// without locking (hot path); loads start, finish and invalidations happen under <see cref="Gate"/>.
/// </summary>
internal sealed class DekCacheEntry(string id)
{
    /// <summary>The algorithms a raw key can serve, by slot.</summary>
    public const int SlotCount = 2;

    public string Id { get; } = id;

    public Lock Gate { get; } = new();

    /// <summary>Bumped by invalidation, so a document load that started before it does not install stale data.</summary>
    public int Generation { get; set; }

    /// <summary>Set (under <see cref="Gate"/>) when the entry left the dictionary; nothing may start on it afterwards.</summary>
    public bool Removed { get; set; }

    public volatile PropertiesSnapshot? Properties;

    public TaskCompletionSource<DataEncryptionKeyProperties>? PropertiesLoad { get; set; }

    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    public KeySlot[] Keys { get; } = [new KeySlot(), new KeySlot()];

    /// <summary>True when nothing is cached or loading (checked under <see cref="Gate"/>).</summary>
    public bool IsIdle
    {
        get
        {
            if (Properties is not null || PropertiesLoad is not null)
            {
                return false;
            }

            foreach (KeySlot slot in Keys)
            {
                if (slot.Current is not null || slot.Load is not null)
                {
                    return false;
                }
            }

            return true;
        }
    }

    /// <summary>The key cached for one algorithm, and the load in flight for it.</summary>
    internal sealed class KeySlot
    {
        [DebuggerBrowsable(DebuggerBrowsableState.Never)]
        public volatile KeySnapshot? Current;

        [DebuggerBrowsable(DebuggerBrowsableState.Never)]
        public KeyLoad? Load { get; set; }
    }
}
