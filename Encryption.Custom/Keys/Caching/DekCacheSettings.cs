using Encryption.Custom.Diagnostics;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Encryption.Custom.Keys.Caching;

/// <summary>The validated cache settings (see <see cref="CosmosDataEncryptionKeyProviderOptions"/> for their meaning).</summary>
internal sealed record DekCacheSettings
{
    public TimeSpan PropertiesTimeToLive { get; init; } = TimeSpan.FromMinutes(30);

    public TimeSpan RefreshBeforeExpiry { get; init; } = TimeSpan.FromMinutes(5);

    public TimeSpan RefreshRetryInterval { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>How often expired keys are disposed even when nobody asks for them.</summary>
    public TimeSpan SweepInterval { get; init; } = TimeSpan.FromMinutes(1);

    public IDistributedCache? DistributedCache { get; init; }

    public string DistributedCacheKeyPrefix { get; init; } = string.Empty;

    public TimeSpan DistributedCacheEntryLifetime { get; init; } = TimeSpan.FromHours(1);

    public TimeProvider TimeProvider { get; init; } = TimeProvider.System;

    /// <summary>Where loads, refreshes and their failures are logged (<see cref="EncryptionLog"/>).</summary>
    public ILogger Logger { get; init; } = NullLogger.Instance;
}
