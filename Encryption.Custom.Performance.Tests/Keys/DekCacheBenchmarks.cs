using System.Collections.Concurrent;
using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using Encryption.Custom.Keys;
using Encryption.Custom.Keys.Caching;
using Encryption.Custom.Keys.Cosmos;

namespace Encryption.Custom.Performance.Tests.Keys;

/// <summary>
/// The DEK cache's hit path, as the JSON layer calls it for every document: through <see cref="CosmosEncryptor"/>,
/// and the cache alone, against a bare dictionary lookup (the floor). Target: no allocation.
/// </summary>
public class DekCacheBenchmarks
{
    private const int OperationsPerInvoke = 1024;
    private const string Algorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    private readonly ConcurrentDictionary<string, DataEncryptionKey> _dictionary = new(StringComparer.Ordinal);
    private DekCache _cache = null!;
    private CosmosEncryptor _encryptor = null!;
    private string[] _ids = null!;

    /// <summary>How many DEKs the cache holds; lookups cycle through them.</summary>
    [Params(1, 64)]
    public int KeyCount { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _ids = Enumerable.Range(0, KeyCount).Select(i => $"dek-{i:D4}").ToArray();
        _cache = new DekCache(new StaticSource(), new DekCacheSettings(), DataEncryptionKeyFactory.Default);
        _encryptor = new CosmosEncryptor(new CacheProvider(_cache));
        foreach (string id in _ids)
        {
            _dictionary[id] = _cache.GetKeyAsync(id, Algorithm, CancellationToken.None).AsTask().GetAwaiter().GetResult();
        }
    }

    [GlobalCleanup]
    public void Cleanup() => _cache.Dispose();

    [Benchmark(Baseline = true, OperationsPerInvoke = OperationsPerInvoke)]
    public DataEncryptionKey DictionaryLookup()
    {
        DataEncryptionKey key = null!;
        for (int i = 0; i < OperationsPerInvoke; i++)
        {
            key = _dictionary[_ids[i % _ids.Length]];
        }

        return key;
    }

    [Benchmark(OperationsPerInvoke = OperationsPerInvoke)]
    public DataEncryptionKey CacheHit()
    {
        DataEncryptionKey key = null!;
        for (int i = 0; i < OperationsPerInvoke; i++)
        {
            ValueTask<DataEncryptionKey> hit = _cache.GetKeyAsync(_ids[i % _ids.Length], Algorithm, CancellationToken.None);
            key = hit.IsCompletedSuccessfully ? hit.Result : hit.AsTask().GetAwaiter().GetResult();
        }

        return key;
    }

    [Benchmark(OperationsPerInvoke = OperationsPerInvoke)]
    public DataEncryptionKey EncryptorHit()
    {
        DataEncryptionKey key = null!;
        for (int i = 0; i < OperationsPerInvoke; i++)
        {
            ValueTask<DataEncryptionKey> hit = _encryptor.GetEncryptionKeyAsync(_ids[i % _ids.Length], Algorithm);
            key = hit.IsCompletedSuccessfully ? hit.Result : hit.AsTask().GetAwaiter().GetResult();
        }

        return key;
    }

    /// <summary>The provider's fetch is the cache lookup plus argument checks; this stands in for it without a container.</summary>
    private sealed class CacheProvider(DekCache cache) : DataEncryptionKeyProvider
    {
        public override ValueTask<DataEncryptionKey> FetchDataEncryptionKeyAsync(string id, string encryptionAlgorithm, CancellationToken cancellationToken = default)
        {
            ArgumentException.ThrowIfNullOrEmpty(id);
            ArgumentException.ThrowIfNullOrEmpty(encryptionAlgorithm);
            return cache.GetKeyAsync(id, encryptionAlgorithm, cancellationToken);
        }
    }

    private sealed class StaticSource : DekCacheSource
    {
        public override Task<DataEncryptionKeyProperties> ReadPropertiesAsync(string id, CancellationToken cancellationToken) =>
            Task.FromResult(new DataEncryptionKeyProperties(id, Algorithm, new byte[40], new EncryptionKeyWrapMetadata("bench"), DateTimeOffset.UnixEpoch));

        public override Task<EncryptionKeyUnwrapResult> UnwrapAsync(DataEncryptionKeyProperties properties, CancellationToken cancellationToken) =>
            Task.FromResult(new EncryptionKeyUnwrapResult(RandomNumberGenerator.GetBytes(32), TimeSpan.FromDays(1)));
    }
}
