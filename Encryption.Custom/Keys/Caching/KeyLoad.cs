using System.Diagnostics;

namespace Encryption.Custom.Keys.Caching;

/// <summary>
/// One key load in flight (single flight per DEK and algorithm) and the callers waiting for it. A caller is counted
/// as a waiter, under the entry's lock, when it joins; when the load installs its key it takes one reference per
/// waiter before anyone can retire the key, so every waiter gets a lease on the key it waited for, even when a newer
/// key replaces it at once (a time to live of zero).
/// </summary>
internal sealed class KeyLoad() : TaskCompletionSource<KeySnapshot>(TaskCreationOptions.RunContinuationsAsynchronously)
{
    /// <summary>Callers waiting that will each own one reference when the load succeeds (under the entry's lock).</summary>
    public int Waiters { get; set; }

    /// <summary>Set under the entry's lock when the load has finished, before its task completes.</summary>
    public bool Completed { get; set; }

    /// <summary>The key the waiters were given a reference on; null if the load failed (under the entry's lock).</summary>
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    public DataEncryptionKey? GrantedKey { get; set; }
}
