using Encryption.Custom.Keys;
using Encryption.Custom.Keys.Caching;
using Encryption.Custom.Keys.Cosmos;
using Microsoft.Azure.Cosmos;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Encryption.Custom;

/// <summary>
/// The standard <see cref="DataEncryptionKeyProvider"/>: data encryption keys are stored wrapped in a Cosmos DB
/// container (partition key <c>/id</c>) and unwrapped with an <see cref="EncryptionKeyWrapProvider"/>; documents
/// and unwrapped keys are cached (see <see cref="CosmosDataEncryptionKeyProviderOptions"/>).
/// </summary>
/// <remarks>
/// Call <see cref="InitializeAsync"/> (or <see cref="Initialize"/>) once before use. Unwrapped keys live only as
/// protected <see cref="DataEncryptionKey"/>s and are disposed when they expire, are invalidated, or the provider is
/// disposed; an operation that is using a key at that moment finishes with it, and the key is zeroed when the last
/// one ends. Safe for concurrent use.
/// </remarks>
public class CosmosDataEncryptionKeyProvider : DataEncryptionKeyProvider, IDisposable, IAsyncDisposable
{
    /// <summary>The partition key path every DEK container must have.</summary>
    public const string ContainerPartitionKeyPath = "/id";

    private readonly DataEncryptionKeyContainerCore? _dataEncryptionKeyContainer;
    private readonly DekCache? _cache;
    private Container? _container;

    /// <summary>Creates a provider; call <see cref="InitializeAsync"/> before use.</summary>
    /// <param name="encryptionKeyWrapProvider">Wraps and unwraps the keys.</param>
    /// <param name="options">Cache and retry options; null for the defaults.</param>
    /// <exception cref="ArgumentNullException"><paramref name="encryptionKeyWrapProvider"/> is null.</exception>
    /// <exception cref="ArgumentException">An option is out of range, or <see cref="CosmosDataEncryptionKeyProviderOptions.DistributedCache"/> is set without a key prefix.</exception>
    public CosmosDataEncryptionKeyProvider(
        EncryptionKeyWrapProvider encryptionKeyWrapProvider,
        CosmosDataEncryptionKeyProviderOptions? options = null)
        : this(encryptionKeyWrapProvider, options, DataEncryptionKeyFactory.Default)
    {
    }

    /// <summary>The seam where unit tests substitute how raw keys become <see cref="DataEncryptionKey"/>s.</summary>
    internal CosmosDataEncryptionKeyProvider(
        EncryptionKeyWrapProvider encryptionKeyWrapProvider,
        CosmosDataEncryptionKeyProviderOptions? options,
        DataEncryptionKeyFactory keyFactory)
    {
        ArgumentNullException.ThrowIfNull(encryptionKeyWrapProvider);
        Options = options ?? new CosmosDataEncryptionKeyProviderOptions();
        DekCacheSettings settings = Validate(Options);
        EncryptionKeyWrapProvider = encryptionKeyWrapProvider;
        TimeProvider = settings.TimeProvider;
        _cache = new DekCache(new CosmosDekCacheSource(this), settings, keyFactory);
        _dataEncryptionKeyContainer = new DataEncryptionKeyContainerCore(this);
    }

    /// <summary>For mocking.</summary>
    protected CosmosDataEncryptionKeyProvider()
    {
        EncryptionKeyWrapProvider = null!;
        Options = new CosmosDataEncryptionKeyProviderOptions();
        TimeProvider = TimeProvider.System;
    }

    /// <summary>Wraps and unwraps the keys.</summary>
    public virtual EncryptionKeyWrapProvider EncryptionKeyWrapProvider { get; }

    /// <summary>Create, read, rewrap and query the stored keys.</summary>
    public virtual DataEncryptionKeyContainer DataEncryptionKeyContainer => _dataEncryptionKeyContainer!;

    /// <summary>The Cosmos container holding the keys.</summary>
    /// <exception cref="InvalidOperationException">The provider is not initialized.</exception>
    public virtual Container Container => GetInitializedContainer();

    internal CosmosDataEncryptionKeyProviderOptions Options { get; }

    internal TimeProvider TimeProvider { get; }

    internal DekCache Cache => _cache!;

    /// <summary>
    /// Creates the DEK container with partition key <c>/id</c> if it does not exist, checks the partition key of
    /// an existing one, and initializes the provider with it.
    /// </summary>
    /// <param name="database">The database of the DEK container.</param>
    /// <param name="containerId">The DEK container's id.</param>
    /// <param name="cancellationToken">Cancels the operation.</param>
    /// <exception cref="ArgumentNullException"><paramref name="database"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="containerId"/> is null or empty, or the existing container's partition key is not <c>/id</c>.</exception>
    /// <exception cref="InvalidOperationException">The provider is already initialized.</exception>
    /// <exception cref="CosmosException">The container could not be read or created.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public virtual async Task InitializeAsync(Database database, string containerId, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(database);
        ArgumentException.ThrowIfNullOrEmpty(containerId);
        ThrowIfInitialized();
        ContainerResponse response = await database.CreateContainerIfNotExistsAsync(
            containerId,
            ContainerPartitionKeyPath,
            throughput: null,
            requestOptions: null,
            cancellationToken).ConfigureAwait(false);
        ContainerProperties properties = response.Resource;
        IReadOnlyList<string>? paths = properties.PartitionKeyPaths;
        bool keyedById = paths is { Count: 1 } && string.Equals(paths[0], ContainerPartitionKeyPath, StringComparison.Ordinal);
        if (!keyedById)
        {
            string actual = paths is null ? properties.PartitionKeyPath ?? "(none)" : string.Join(", ", paths);
            throw new ArgumentException(
                $"The container '{containerId}' has the partition key '{actual}'; a data encryption key container needs '{ContainerPartitionKeyPath}'. Use another container id.",
                nameof(containerId));
        }

        Initialize(response.Container);
    }

    /// <summary>Initializes the provider with an existing container, whose partition key must be <c>/id</c> (not checked here).</summary>
    /// <param name="container">The DEK container.</param>
    /// <exception cref="ArgumentNullException"><paramref name="container"/> is null.</exception>
    /// <exception cref="InvalidOperationException">The provider is already initialized.</exception>
    public virtual void Initialize(Container container)
    {
        ArgumentNullException.ThrowIfNull(container);
        if (Interlocked.CompareExchange(ref _container, container, null) is not null)
        {
            ThrowAlreadyInitialized();
        }
    }

    /// <inheritdoc/>
    /// <remarks>
    /// The key may be evicted and disposed at any time after it is returned; the library's own operations lease it
    /// inside the cache instead, so that an eviction never fails them.
    /// </remarks>
    /// <exception cref="InvalidOperationException">The provider is not initialized.</exception>
    /// <exception cref="ObjectDisposedException">The provider was disposed.</exception>
    public override ValueTask<DataEncryptionKey> FetchDataEncryptionKeyAsync(
        string id,
        string encryptionAlgorithm,
        CancellationToken cancellationToken = default)
    {
        ValueTask<DataEncryptionKeyLease> pending = LeaseDataEncryptionKeyAsync(id, encryptionAlgorithm, cancellationToken);
        if (pending.IsCompletedSuccessfully)
        {
            using DataEncryptionKeyLease lease = pending.Result;
            return new ValueTask<DataEncryptionKey>(lease.Key);
        }

        return ReturnWhenLeasedAsync(pending);

        static async ValueTask<DataEncryptionKey> ReturnWhenLeasedAsync(ValueTask<DataEncryptionKeyLease> pending)
        {
            using DataEncryptionKeyLease lease = await pending.ConfigureAwait(false);
            return lease.Key;
        }
    }

    /// <exception cref="InvalidOperationException">The provider is not initialized.</exception>
    /// <exception cref="ObjectDisposedException">The provider was disposed.</exception>
    internal override ValueTask<DataEncryptionKeyLease> LeaseDataEncryptionKeyAsync(string id, string encryptionAlgorithm, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(id);
        ArgumentException.ThrowIfNullOrEmpty(encryptionAlgorithm);
        if (_container is null)
        {
            ThrowNotInitialized();
        }

        return _cache!.LeaseKeyAsync(id, encryptionAlgorithm, cancellationToken);
    }

    /// <summary>Disposes every cached key (zeroing it) and stops the cache's timer.</summary>
    public void Dispose()
    {
        Dispose(disposing: true);
        GC.SuppressFinalize(this);
    }

    /// <summary>
    /// The same as <see cref="Dispose()"/>, for <c>await using</c> (as with Microsoft's package): disposal has
    /// nothing to wait for (in-flight loads are cancelled and cached keys zeroed at once).
    /// </summary>
    /// <returns>A completed task.</returns>
    public ValueTask DisposeAsync()
    {
        Dispose(disposing: true);
        GC.SuppressFinalize(this);
        return ValueTask.CompletedTask;
    }

    /// <summary>Disposes every cached key.</summary>
    /// <param name="disposing">True from <see cref="Dispose()"/>.</param>
    protected virtual void Dispose(bool disposing)
    {
        if (disposing)
        {
            _cache?.Dispose();
        }
    }

    internal Container GetInitializedContainer()
    {
        Container? container = Volatile.Read(ref _container);
        if (container is null)
        {
            ThrowNotInitialized();
        }

        return container;
    }

    [System.Diagnostics.CodeAnalysis.DoesNotReturn]
    private static void ThrowNotInitialized() =>
        throw new InvalidOperationException($"The {nameof(CosmosDataEncryptionKeyProvider)} is not initialized: call {nameof(InitializeAsync)} or {nameof(Initialize)} first.");

    [System.Diagnostics.CodeAnalysis.DoesNotReturn]
    private static void ThrowAlreadyInitialized() =>
        throw new InvalidOperationException($"The {nameof(CosmosDataEncryptionKeyProvider)} is already initialized.");

    private static DekCacheSettings Validate(CosmosDataEncryptionKeyProviderOptions options)
    {
        RequirePositive(options.DataEncryptionKeyPropertiesTimeToLive, nameof(options.DataEncryptionKeyPropertiesTimeToLive));
        RequireNonNegative(options.RefreshBeforeExpiry, nameof(options.RefreshBeforeExpiry));
        RequirePositive(options.RefreshRetryInterval, nameof(options.RefreshRetryInterval));
        if (options.RewrapMaxAttempts < 1)
        {
            throw new ArgumentException($"{nameof(options.RewrapMaxAttempts)} must be at least 1.", nameof(options));
        }

        ArgumentNullException.ThrowIfNull(options.TimeProvider, nameof(options.TimeProvider));
        TimeSpan lifetime = options.DistributedCacheEntryLifetime ?? (options.DataEncryptionKeyPropertiesTimeToLive * 2);
        if (options.DistributedCache is not null)
        {
            if (string.IsNullOrEmpty(options.DistributedCacheKeyPrefix))
            {
                throw new ArgumentException(
                    $"{nameof(options.DistributedCacheKeyPrefix)} is required with a {nameof(options.DistributedCache)}: make it unique per DEK container.",
                    nameof(options));
            }

            RequirePositive(lifetime, nameof(options.DistributedCacheEntryLifetime));
        }

        return new DekCacheSettings
        {
            PropertiesTimeToLive = options.DataEncryptionKeyPropertiesTimeToLive,
            RefreshBeforeExpiry = options.RefreshBeforeExpiry,
            RefreshRetryInterval = options.RefreshRetryInterval,
            DistributedCache = options.DistributedCache,
            DistributedCacheKeyPrefix = options.DistributedCacheKeyPrefix ?? string.Empty,
            DistributedCacheEntryLifetime = lifetime,
            TimeProvider = options.TimeProvider,
            Logger = options.LoggerFactory?.CreateLogger<CosmosDataEncryptionKeyProvider>() ?? NullLogger<CosmosDataEncryptionKeyProvider>.Instance,
        };
    }

    private static void RequirePositive(TimeSpan value, string name)
    {
        if (value <= TimeSpan.Zero && value != Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentException($"The option {name} must be positive.");
        }
    }

    private static void RequireNonNegative(TimeSpan value, string name)
    {
        if (value < TimeSpan.Zero)
        {
            throw new ArgumentException($"The option {name} must not be negative.");
        }
    }

    private void ThrowIfInitialized()
    {
        if (Volatile.Read(ref _container) is not null)
        {
            ThrowAlreadyInitialized();
        }
    }
}
