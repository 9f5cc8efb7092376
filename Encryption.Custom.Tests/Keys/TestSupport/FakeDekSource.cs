using System.Collections.Concurrent;
using System.Security.Cryptography;
using Encryption.Custom.Keys;
using Encryption.Custom.Keys.Caching;
using Encryption.Custom.Keys.Cosmos;
using Encryption.Custom.Keys.Local;

namespace Encryption.Custom.Tests.Keys.TestSupport;

/// <summary>
/// Feeds a <see cref="DekCache"/> in unit tests: DEK documents in memory, wrapped for real with a local AES key,
/// with counters and switches to hold, fail or corrupt the reads and unwraps.
/// </summary>
internal sealed class FakeDekSource : DekCacheSource, IDisposable
{
    private readonly LocalKeyWrapProvider _wrapProvider;
    private int _readCount;
    private int _unwrapCount;

    public FakeDekSource(TimeSpan keyTimeToLive)
    {
        _wrapProvider = new LocalKeyWrapProvider(new LocalKeyWrapProviderOptions { DataEncryptionKeyCacheTimeToLive = keyTimeToLive });
        _wrapProvider.AddAesKey("kek", RandomNumberGenerator.GetBytes(32));
    }

    public ConcurrentDictionary<string, DataEncryptionKeyProperties> Documents { get; } = new(StringComparer.Ordinal);

    /// <summary>What each DEK should unwrap to (test knowledge only).</summary>
    public ConcurrentDictionary<string, byte[]> RawKeys { get; } = new(StringComparer.Ordinal);

    public int ReadCount => Volatile.Read(ref _readCount);

    public int UnwrapCount => Volatile.Read(ref _unwrapCount);

    /// <summary>When set, every read throws it.</summary>
    public Exception? ReadFailure { get; set; }

    /// <summary>When set, every unwrap throws it (a key-wrap provider outage).</summary>
    public Exception? UnwrapFailure { get; set; }

    /// <summary>When set, unwraps wait for it (to hold a load in flight).</summary>
    public TaskCompletionSource? UnwrapGate { get; set; }

    /// <summary>When set, unwraps return this many bytes of garbage instead of the key.</summary>
    public int? WrongUnwrapLength { get; set; }

    /// <summary>Completes each time an unwrap has been entered, for tests that wait for a background refresh to start.</summary>
    public SemaphoreSlim UnwrapEntered { get; } = new(0);

    public DataEncryptionKeyProperties AddKey(string id, string encryptionAlgorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized)
    {
        byte[] raw = RandomNumberGenerator.GetBytes(32);
        EncryptionKeyWrapMetadata metadata = LocalKeyWrapProvider.CreateMetadata("kek", KeyWrapAlgorithm.AesKeyWrap);
        EncryptionKeyWrapResult wrapped = _wrapProvider.WrapKeyAsync(raw, metadata).GetAwaiter().GetResult();
        var properties = new DataEncryptionKeyProperties(id, encryptionAlgorithm, wrapped.WrappedDataEncryptionKey, wrapped.EncryptionKeyWrapMetadata, DateTimeOffset.UnixEpoch);
        Documents[id] = properties;
        RawKeys[id] = raw;
        return properties;
    }

    public override Task<DataEncryptionKeyProperties> ReadPropertiesAsync(string id, CancellationToken cancellationToken)
    {
        Interlocked.Increment(ref _readCount);
        if (ReadFailure is { } failure)
        {
            return Task.FromException<DataEncryptionKeyProperties>(failure);
        }

        return Documents.TryGetValue(id, out DataEncryptionKeyProperties? properties)
            ? Task.FromResult(properties)
            : Task.FromException<DataEncryptionKeyProperties>(KeyErrors.NotFound(id, null));
    }

    public override async Task<EncryptionKeyUnwrapResult> UnwrapAsync(DataEncryptionKeyProperties properties, CancellationToken cancellationToken)
    {
        Interlocked.Increment(ref _unwrapCount);
        UnwrapEntered.Release();
        if (UnwrapGate is { } gate)
        {
            await gate.Task.WaitAsync(cancellationToken);
        }

        if (UnwrapFailure is { } failure)
        {
            throw failure;
        }

        if (WrongUnwrapLength is { } length)
        {
            return new EncryptionKeyUnwrapResult(RandomNumberGenerator.GetBytes(length), TimeSpan.FromHours(1));
        }

        return await _wrapProvider.UnwrapKeyAsync(properties.WrappedDataEncryptionKey, properties.EncryptionKeyWrapMetadata, cancellationToken);
    }

    public void Dispose()
    {
        _wrapProvider.Dispose();
        UnwrapEntered.Dispose();
    }
}
