using System.Collections.Concurrent;
using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using Encryption.Custom.Keys;
using Encryption.Custom.Keys.Caching;
using Encryption.Custom.Keys.Cosmos;

namespace Encryption.Custom.Performance.Tests.Keys;

/// <summary>
/// The DEK cache's hit path, as the JSON layer calls it for every document (a lease taken and given back): through
/// <see cref="CosmosEncryptor"/>, and the cache alone, against a bare dictionary lookup (the floor). Target: no allocation.
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
            using DataEncryptionKeyLease lease = _cache.LeaseKeyAsync(id, Algorithm, CancellationToken.None).AsTask().GetAwaiter().GetResult();
            _dictionary[id] = lease.Key;
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
            ValueTask<DataEncryptionKeyLease> hit = _cache.LeaseKeyAsync(_ids[i % _ids.Length], Algorithm, CancellationToken.None);
            using DataEncryptionKeyLease lease = hit.IsCompletedSuccessfully ? hit.Result : hit.AsTask().GetAwaiter().GetResult();
            key = lease.Key;
        }

        return key;
    }

    [Benchmark(OperationsPerInvoke = OperationsPerInvoke)]
    public DataEncryptionKey EncryptorHit()
    {
        DataEncryptionKey key = null!;
        for (int i = 0; i < OperationsPerInvoke; i++)
        {
            ValueTask<DataEncryptionKeyLease> hit = _encryptor.LeaseEncryptionKeyAsync(_ids[i % _ids.Length], Algorithm, CancellationToken.None);
            using DataEncryptionKeyLease lease = hit.IsCompletedSuccessfully ? hit.Result : hit.AsTask().GetAwaiter().GetResult();
            key = lease.Key;
        }

        return key;
    }

    /// <summary>The provider's lease is the cache lease plus argument checks; this stands in for it without a container.</summary>
    private sealed class CacheProvider(DekCache cache) : DataEncryptionKeyProvider
    {
        public override ValueTask<DataEncryptionKey> FetchDataEncryptionKeyAsync(string id, string encryptionAlgorithm, CancellationToken cancellationToken = default) =>
            throw new NotSupportedException("The benchmark measures the lease path.");

        internal override ValueTask<DataEncryptionKeyLease> LeaseDataEncryptionKeyAsync(string id, string encryptionAlgorithm, CancellationToken cancellationToken)
        {
            ArgumentException.ThrowIfNullOrEmpty(id);
            ArgumentException.ThrowIfNullOrEmpty(encryptionAlgorithm);
            return cache.LeaseKeyAsync(id, encryptionAlgorithm, cancellationToken);
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
