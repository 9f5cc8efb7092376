using Encryption.Custom.Keys;
using Encryption.Custom.Keys.Caching;

namespace Encryption.Custom.Tests.Keys.TestSupport;

internal static class DekCacheExtensions
{
    /// <summary>
    /// The key a lease gives, with the lease given back at once: for tests of what the cache holds and loads, not of
    /// how long a key lives (those take leases themselves).
    /// </summary>
    public static async ValueTask<DataEncryptionKey> GetKeyAsync(this DekCache cache, string id, string encryptionAlgorithm, CancellationToken cancellationToken)
    {
        using DataEncryptionKeyLease lease = await cache.LeaseKeyAsync(id, encryptionAlgorithm, cancellationToken);
        return lease.Key;
    }
}
