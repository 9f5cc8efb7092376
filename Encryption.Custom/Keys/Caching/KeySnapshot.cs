using System.Diagnostics;

namespace Encryption.Custom.Keys.Caching;

/// <summary>An unwrapped key with its deadlines (in the cache's clock units). Immutable, swapped whole.</summary>
internal sealed class KeySnapshot(DataEncryptionKey key, long refreshAt, long expiresAt)
{
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    public DataEncryptionKey Key { get; } = key;

    /// <summary>From here on, a use starts a background refresh.</summary>
    public long RefreshAt { get; } = refreshAt;

    /// <summary>From here on, the key must not be used.</summary>
    public long ExpiresAt { get; } = expiresAt;
}
