using System.Runtime.InteropServices;
using System.Text.Json;
using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Json.Leasing;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Values;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Lookups;

/// <summary>
/// Turns the id and partition key an application looks a document up by into the ones stored, when the container's
/// policy encrypts them (docs/container.md "Encrypted ids and partition keys"): the deterministic encryption of the
/// value under the policy's key, exactly as the processors write it in the document, so every key-addressed
/// operation finds the document without a change to the application's code.
/// </summary>
/// <remarks>
/// One owner for every operation that takes an id or a <see cref="PartitionKey"/>. Nothing is cached: a cache of
/// lookups would keep plaintext ids in memory, and one encryption costs about a microsecond. The synchronous forms
/// serve the SDK's synchronous factories (query and change feed iterators, batches): the key is leased synchronously
/// (free when cached) and the container's partition key paths are read once, as the query path leases its keys.
/// </remarks>
internal sealed class LookupKeys
{
    private readonly PolicyRuleSet? _rules;
    private readonly Encryptor _encryptor;
    private readonly PartitionKeyGuard _guard;
    private readonly int _idIndex;
    private readonly bool _mayEncryptPartitionKey;
    private volatile int[]? _components;

    public LookupKeys(PolicyRuleSet? rules, Encryptor encryptor, PartitionKeyGuard guard)
    {
        _rules = rules;
        _encryptor = encryptor;
        _guard = guard;
        _idIndex = rules is not null && rules.Plan.EncryptsId ? rules.Plan.IndexOf(IdCellText.Path) : -1;

        // Only a deterministic top-level path can hold an encrypted partition key (PartitionKeyGuard); without one the
        // container's definition is never read for lookups.
        _mayEncryptPartitionKey = rules is not null && rules.Rules.Any(r => r.IsDeterministic && r.Path.Depth == 1 && r.Text != IdCellText.Path);
    }

    /// <summary>Whether any lookup is translated (the policy encrypts the id or may encrypt the partition key).</summary>
    public bool IsActive => _idIndex >= 0 || _mayEncryptPartitionKey;

    /// <summary>The stored form of <paramref name="id"/>.</summary>
    /// <exception cref="EncryptionException">The id is too long to be encrypted, or the key is unavailable.</exception>
    public async ValueTask<string> EncryptIdAsync(string id, CancellationToken cancellationToken)
    {
        if (_idIndex < 0)
        {
            return id;
        }

        using DataEncryptionKeyLease lease = await KeyResolver.LeaseAsync(_encryptor, _rules!.DataEncryptionKeyId, _rules.EncryptionAlgorithm, cancellationToken).ConfigureAwait(false);
        return Encrypt(lease.Key, id, _idIndex);
    }

    /// <summary>The stored form of <paramref name="partitionKey"/>: each component whose path the policy encrypts, encrypted.</summary>
    /// <exception cref="EncryptionException">A component of an encrypted path is not a string, or the key is unavailable.</exception>
    public async ValueTask<PartitionKey> EncryptAsync(PartitionKey partitionKey, CancellationToken cancellationToken)
    {
        if (!_mayEncryptPartitionKey)
        {
            return partitionKey;
        }

        int[] encrypted = await GetEncryptedComponentsAsync(cancellationToken).ConfigureAwait(false);
        if (encrypted.Length == 0)
        {
            return partitionKey;
        }

        using DataEncryptionKeyLease lease = await KeyResolver.LeaseAsync(_encryptor, _rules!.DataEncryptionKeyId, _rules.EncryptionAlgorithm, cancellationToken).ConfigureAwait(false);
        return Encrypt(lease.Key, partitionKey, encrypted);
    }

    /// <inheritdoc cref="EncryptAsync(PartitionKey, CancellationToken)"/>
    public PartitionKey Encrypt(PartitionKey partitionKey)
    {
        if (!_mayEncryptPartitionKey)
        {
            return partitionKey;
        }

        // Synchronous factories of the SDK: the definition is read once per container (see remarks).
        int[] encrypted = GetEncryptedComponentsAsync(CancellationToken.None).AsTask().GetAwaiter().GetResult();
        if (encrypted.Length == 0)
        {
            return partitionKey;
        }

        using DataEncryptionKeyLease lease = KeyResolver.Lease(_encryptor, _rules!.DataEncryptionKeyId, _rules.EncryptionAlgorithm);
        return Encrypt(lease.Key, partitionKey, encrypted);
    }

    /// <summary>The stored forms of a read-many list.</summary>
    public async ValueTask<IReadOnlyList<(string id, PartitionKey partitionKey)>> EncryptAsync(IReadOnlyList<(string id, PartitionKey partitionKey)> items, CancellationToken cancellationToken)
    {
        if (!IsActive)
        {
            return items;
        }

        var stored = new (string, PartitionKey)[items.Count];
        for (int i = 0; i < items.Count; i++)
        {
            ArgumentNullException.ThrowIfNull(items[i].id, nameof(items));
            stored[i] = (await EncryptIdAsync(items[i].id, cancellationToken).ConfigureAwait(false), await EncryptAsync(items[i].partitionKey, cancellationToken).ConfigureAwait(false));
        }

        return stored;
    }

    /// <summary>
    /// Query options whose <see cref="QueryRequestOptions.PartitionKey"/> is the stored key: a shallow copy (the
    /// caller's instance may be shared), or the options themselves when there is nothing to change.
    /// </summary>
    public QueryRequestOptions? Encrypt(QueryRequestOptions? options)
    {
        if (options?.PartitionKey is not PartitionKey partitionKey || !_mayEncryptPartitionKey)
        {
            return options;
        }

        PartitionKey stored = Encrypt(partitionKey);
        if (stored.Equals(partitionKey))
        {
            return options;
        }

        QueryRequestOptions copy = RequestOptionsCopy.Shallow(options);
        copy.PartitionKey = stored;
        return copy;
    }

    /// <summary>
    /// The stored form of a feed range: a range from a partition key (<see cref="FeedRange.FromPartitionKey"/>) gets
    /// the stored key; a range of effective partition keys is the service's and passes.
    /// </summary>
    public FeedRange Encrypt(FeedRange feedRange)
    {
        if (!_mayEncryptPartitionKey || !FeedRangeKeys.TryGetPartitionKey(feedRange, out PartitionKey partitionKey))
        {
            return feedRange;
        }

        return FeedRange.FromPartitionKey(Encrypt(partitionKey));
    }

    /// <summary>
    /// Refuses what an encrypted id or partition key cannot live with: other accepted keys (a document under one of them
    /// has its key under that key, so a lookup under the current key misses it: such a container changes keys by the
    /// copy migration), and a mode that writes plaintext.
    /// </summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.InvalidOptions"/>, naming the path.</exception>
    internal static void CheckKeyPolicy(PolicyRuleSet rules, string path)
    {
        string? reason = rules.ReadableKeyIds.Count > 1
            ? "a policy that encrypts the id or the partition key cannot accept other keys (AcceptedDataEncryptionKeyIds): a document is looked up by its key's ciphertext under the policy's key, so documents under another key would not be found. Change the key by copying the container (docs/migration.md, \"Copying into a new container\")."
            : !rules.EncryptsWrites
                ? "a policy that encrypts the id or the partition key must encrypt writes (not WritePlaintextReadBoth): documents written with a plaintext key would not be found by their encrypted key. Copy the container instead (docs/migration.md)."
                : null;
        if (reason is not null)
        {
            throw new EncryptionException(EncryptionErrorKind.InvalidOptions, $"The path '{path}' cannot be encrypted: {reason}", rules.DataEncryptionKeyId, path);
        }
    }

    // Per component of the container's partition key, the plan index of its path when the policy encrypts it, else -1;
    // empty when no component is encrypted.
    private async ValueTask<int[]> GetEncryptedComponentsAsync(CancellationToken cancellationToken)
    {
        if (_components is { } known)
        {
            return known;
        }

        IReadOnlyList<string> paths = await _guard.GetPartitionKeyPathsAsync(cancellationToken).ConfigureAwait(false);
        int[] indexes = new int[paths.Count];
        for (int i = 0; i < paths.Count; i++)
        {
            int index = _rules!.Plan.IndexOf(paths[i]);
            indexes[i] = index >= 0 && _rules.Plan.IsDeterministic(index) ? index : -1;
        }

        if (indexes.Any(i => i >= 0))
        {
            string path = _rules!.Plan.GetPath(indexes.First(i => i >= 0));
            CheckKeyPolicy(_rules, path);
            return _components = indexes;
        }

        return _components = [];
    }

    private PartitionKey Encrypt(DataEncryptionKey key, PartitionKey partitionKey, int[] encrypted)
    {
        if (!FeedRangeKeys.TryReadComponents(partitionKey, out JsonElement[]? values))
        {
            // PartitionKey.None: no value to encrypt.
            return partitionKey;
        }

        if (values.Length == 1 && encrypted.Length == 1)
        {
            return encrypted[0] >= 0 && values[0].ValueKind == JsonValueKind.String
                ? new PartitionKey(Encrypt(key, values[0], encrypted[0]))
                : Refuse(values[0], encrypted[0], partitionKey);
        }

        // Hierarchical keys, also a prefix of one (fewer components than paths).
        var builder = new PartitionKeyBuilder();
        for (int i = 0; i < values.Length; i++)
        {
            JsonElement value = values[i];
            int pathIndex = i < encrypted.Length ? encrypted[i] : -1;
            if (pathIndex >= 0 && value.ValueKind == JsonValueKind.String)
            {
                builder.Add(Encrypt(key, value, pathIndex));
                continue;
            }

            Refuse(value, pathIndex, partitionKey);
            FeedRangeKeys.Add(builder, value);
        }

        return builder.Build();
    }

    // A component of an encrypted path that is not a string (a number or a boolean) is refused: its stored form would
    // depend on how a serializer spells the number. Null and "none" are never encrypted and pass.
    private PartitionKey Refuse(JsonElement value, int pathIndex, PartitionKey partitionKey)
    {
        if (pathIndex >= 0 && value.ValueKind is JsonValueKind.Number or JsonValueKind.True or JsonValueKind.False)
        {
            string path = _rules!.Plan.GetPath(pathIndex);
            throw new EncryptionException(
                EncryptionErrorKind.InvalidOptions,
                $"The partition key path '{path}' is encrypted, so its values must be strings: a {(value.ValueKind == JsonValueKind.Number ? "number" : "boolean")} cannot be looked up by its ciphertext.",
                _rules.DataEncryptionKeyId,
                path);
        }

        return partitionKey;
    }

    // The value as the processors write it at the path (StoredValue: deterministic, marker "string", the id in its
    // stored alphabet).
    private string Encrypt(DataEncryptionKey key, string value, int pathIndex) =>
        StoredValue.EncryptString(key, value, Site(pathIndex));

    // A partition key component from its JSON token, unescaped as a document's string is (an escaped lone surrogate
    // is refused without the reader's message, which quotes it).
    private string Encrypt(DataEncryptionKey key, JsonElement value, int pathIndex) =>
        StoredValue.EncryptJson(key, JsonMarshal.GetRawUtf8Value(value), Site(pathIndex), EncryptionProcessorOptions.DefaultMaxDepth);

    private ValueSite Site(int pathIndex) => new(_rules!.Plan.GetPath(pathIndex), _rules.Plan.GetDeterministicPrefix(pathIndex), _rules.DataEncryptionKeyId);
}
