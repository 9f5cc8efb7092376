using Microsoft.Extensions.Caching.Distributed;

namespace Encryption.Custom;

/// <summary>Options for the <see cref="CosmosDataEncryptionKeyProvider"/>: its caches and the rewrap retries.</summary>
/// <remarks>
/// Unwrapped keys are cached for as long as the key-wrap provider allows (its
/// <see cref="EncryptionKeyUnwrapResult.ClientCacheTimeToLive"/>); these options govern the DEK documents
/// and when a key is refreshed. See <c>docs/key-management.md</c> for the trade-offs.
/// </remarks>
public sealed class CosmosDataEncryptionKeyProviderOptions
{
    /// <summary>
    /// How long a DEK document (wrapped key and metadata) is cached in memory before it is read again. Default: 30
    /// minutes. Shorter notices a rewrap by another process sooner; longer reads the container less.
    /// </summary>
    public TimeSpan DataEncryptionKeyPropertiesTimeToLive { get; set; } = TimeSpan.FromMinutes(30);

    /// <summary>
    /// How long before an unwrapped key expires it is refreshed in the background, so that callers never wait for
    /// the key-wrap provider while it is healthy. Default: 5 minutes; never more than half the key's lifetime.
    /// </summary>
    public TimeSpan RefreshBeforeExpiry { get; set; } = TimeSpan.FromMinutes(5);

    /// <summary>
    /// After a failed background refresh, how long to wait before the next attempt (the cached key keeps working
    /// until it expires). Default: 30 seconds.
    /// </summary>
    public TimeSpan RefreshRetryInterval { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// An optional second-level cache shared between processes, holding DEK documents (wrapped keys only, never
    /// unwrapped keys). Default: none. Use one with encryption in transit and at rest.
    /// </summary>
    public IDistributedCache? DistributedCache { get; set; }

    /// <summary>
    /// Prefix of the <see cref="DistributedCache"/> keys; required with it. Make it unique per DEK container (for
    /// example account, database and container names) so that providers sharing a cache do not mix up DEKs.
    /// </summary>
    public string? DistributedCacheKeyPrefix { get; set; }

    /// <summary>
    /// How long an entry lives in the <see cref="DistributedCache"/>. Default (null): twice
    /// <see cref="DataEncryptionKeyPropertiesTimeToLive"/>, so that entries can outlive a container outage.
    /// </summary>
    public TimeSpan? DistributedCacheEntryLifetime { get; set; }

    /// <summary>
    /// How many times a rewrap reads, rewraps and writes the DEK document when another writer changed it in the
    /// meantime (HTTP 412 on the ETag) before it gives up with an error. Default: 3.
    /// </summary>
    public int RewrapMaxAttempts { get; set; } = 3;

    /// <summary>The clock for every time to live. Default: <see cref="TimeProvider.System"/>; tests substitute their own.</summary>
    public TimeProvider TimeProvider { get; set; } = TimeProvider.System;
}
