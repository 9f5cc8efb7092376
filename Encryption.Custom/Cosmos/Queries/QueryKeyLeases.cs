using Encryption.Custom.Json.Leasing;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Cosmos.Queries;

/// <summary>
/// The keys one query's operands are encrypted under, each leased once for the whole query rather than once per
/// operand and key: an <c>IN</c> list of 20,000 values asks the encryptor for each accepted key once, not 40,000
/// times. Disposed when the query is rewritten; the leases keep the keys alive meanwhile.
/// </summary>
internal sealed class QueryKeyLeases : IDisposable
{
    private readonly Encryptor _encryptor;
    private readonly string _algorithm;
    private readonly Dictionary<string, DataEncryptionKeyLease> _leases = new(StringComparer.Ordinal);

    public QueryKeyLeases(Encryptor encryptor, string algorithm)
    {
        _encryptor = encryptor;
        _algorithm = algorithm;
    }

    /// <summary>The key <paramref name="keyId"/>, leased on first use (synchronously: free when cached).</summary>
    /// <exception cref="EncryptionException">The key is unavailable or for another algorithm.</exception>
    public DataEncryptionKey Get(string keyId)
    {
        if (!_leases.TryGetValue(keyId, out DataEncryptionKeyLease lease))
        {
            lease = KeyResolver.Lease(_encryptor, keyId, _algorithm);
            _leases.Add(keyId, lease);
        }

        return lease.Key;
    }

    /// <summary>Leases <paramref name="keyIds"/> without blocking (a cache miss awaits the key provider), so that <see cref="Get"/> finds them.</summary>
    /// <exception cref="EncryptionException">A key is unavailable or for another algorithm.</exception>
    public async ValueTask LeaseAllAsync(IEnumerable<string> keyIds, CancellationToken cancellationToken)
    {
        foreach (string keyId in keyIds)
        {
            if (!_leases.ContainsKey(keyId))
            {
                _leases.Add(keyId, await KeyResolver.LeaseAsync(_encryptor, keyId, _algorithm, cancellationToken).ConfigureAwait(false));
            }
        }
    }

    public void Dispose()
    {
        foreach (DataEncryptionKeyLease lease in _leases.Values)
        {
            lease.Dispose();
        }

        _leases.Clear();
    }
}
