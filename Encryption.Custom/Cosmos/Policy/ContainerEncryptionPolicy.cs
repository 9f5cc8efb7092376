namespace Encryption.Custom;

/// <summary>
/// What an encryption container encrypts without being asked, and what it refuses to read: the data encryption
/// key, the algorithm, the paths, the previous keys still accepted on reads, and the <see cref="PlaintextPolicy"/>.
/// Given to <see cref="EncryptionContainerExtensions.WithEncryptor"/> through <see cref="EncryptionContainerOptions.Policy"/>.
/// </summary>
/// <remarks>
/// Immutable and validated when built, with the rules of <see cref="EncryptionOptions"/> (top-level paths
/// <c>/name</c>, no repeats, not <c>/id</c> or <c>/_ei</c>; a non-empty key id; the current algorithm), plus: at least
/// one path. Paths that hold the container's partition key are refused by the container before its first write.
/// Semantics, modes and limits: docs/policy.md.
/// </remarks>
public sealed class ContainerEncryptionPolicy
{
    private readonly string[] _paths;
    private readonly string[] _deterministicPaths;
    private readonly EncryptionPlan _plan;
    private readonly string _encryptionAlgorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;
    private readonly PlaintextPolicy _plaintextPolicy;
    private readonly IReadOnlyList<string> _acceptedKeyIds = [];

    /// <summary>Creates a policy that encrypts <paramref name="paths"/> with <paramref name="dataEncryptionKeyId"/>.</summary>
    /// <param name="dataEncryptionKeyId">The key every write encrypts with.</param>
    /// <param name="paths">The top-level paths, such as <c>/ssn</c>, exactly as the stored property names (case matters).</param>
    /// <exception cref="ArgumentNullException">An argument or a path is null.</exception>
    /// <exception cref="EncryptionException">The key id or a path is invalid, or no path is given (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    public ContainerEncryptionPolicy(string dataEncryptionKeyId, IEnumerable<string> paths)
        : this(dataEncryptionKeyId, ToIncludedPaths(paths))
    {
    }

    /// <summary>Creates a policy that encrypts <paramref name="includedPaths"/> with <paramref name="dataEncryptionKeyId"/>.</summary>
    /// <param name="dataEncryptionKeyId">The key every write encrypts with.</param>
    /// <param name="includedPaths">The properties to encrypt.</param>
    /// <exception cref="ArgumentNullException">An argument or an entry is null.</exception>
    /// <exception cref="EncryptionException">The key id or a path is invalid, or no path is given (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    public ContainerEncryptionPolicy(string dataEncryptionKeyId, IEnumerable<EncryptionPolicyIncludedPath> includedPaths)
    {
        ArgumentNullException.ThrowIfNull(dataEncryptionKeyId);
        ArgumentNullException.ThrowIfNull(includedPaths);
        EncryptionPolicyIncludedPath[] entries = [.. includedPaths];
        _paths = new string[entries.Length];
        for (int i = 0; i < entries.Length; i++)
        {
            ArgumentNullException.ThrowIfNull(entries[i], nameof(includedPaths));
            _paths[i] = entries[i].Path;
        }

        _deterministicPaths = [.. entries.Where(e => e.EncryptionType == PathEncryptionType.Deterministic).Select(e => e.Path)];
        if (_paths.Length == 0)
        {
            JsonErrors.ThrowInvalidOptions("An encryption policy must list at least one path.", dataEncryptionKeyId);
        }

        IncludedPaths = entries;
        _plan = EncryptionPlan.Create(dataEncryptionKeyId, _encryptionAlgorithm, _paths, _deterministicPaths);
        DataEncryptionKeyId = dataEncryptionKeyId;
    }

    /// <summary>The key every write encrypts with.</summary>
    public string DataEncryptionKeyId { get; }

    /// <summary>The properties the policy encrypts, in the order given.</summary>
    public IReadOnlyList<EncryptionPolicyIncludedPath> IncludedPaths { get; }

    /// <summary>
    /// The algorithm. Default and only writable value: <see cref="CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized"/>
    /// (randomized: equal plaintexts give different ciphertexts, so the service cannot compare these properties).
    /// </summary>
    /// <exception cref="EncryptionException">The algorithm cannot be written (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    public string EncryptionAlgorithm
    {
        get => _encryptionAlgorithm;
        init
        {
            _ = EncryptionPlan.Create(DataEncryptionKeyId, value, _paths, _deterministicPaths);
            _encryptionAlgorithm = value;
        }
    }

    /// <summary>What the container does with plaintext in the policy's paths. Default <see cref="PlaintextPolicy.WriteEncryptedForbidPlaintext"/>.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not defined.</exception>
    public PlaintextPolicy PlaintextPolicy
    {
        get => _plaintextPolicy;
        init
        {
            if (!Enum.IsDefined(value))
            {
                throw new ArgumentOutOfRangeException(nameof(value), value, "Unknown plaintext policy.");
            }

            _plaintextPolicy = value;
        }
    }

    /// <summary>
    /// Other keys whose documents still read (previous keys during a rotation). Default empty: only documents
    /// encrypted with <see cref="DataEncryptionKeyId"/> read; any other key fails with
    /// <see cref="EncryptionErrorKind.KeyNotAccepted"/> before it is loaded.
    /// </summary>
    /// <exception cref="ArgumentNullException">The list or an id is null.</exception>
    /// <exception cref="ArgumentException">An id is empty or white space.</exception>
    public IReadOnlyList<string> AcceptedDataEncryptionKeyIds
    {
        get => _acceptedKeyIds;
        init
        {
            ArgumentNullException.ThrowIfNull(value);
            string[] ids = [.. value];
            foreach (string id in ids)
            {
                ArgumentNullException.ThrowIfNull(id, nameof(value));
                ArgumentException.ThrowIfNullOrWhiteSpace(id, nameof(value));
            }

            _acceptedKeyIds = ids;
        }
    }

    /// <summary>The compiled, validated paths (shared by the write and read checks).</summary>
    internal EncryptionPlan Plan => _plan;

    /// <summary>The paths as strings, in order.</summary>
    internal IReadOnlyList<string> Paths => _paths;

    /// <summary>The paths encrypted deterministically, in order (empty when all are randomized).</summary>
    internal IReadOnlyList<string> DeterministicPaths => _deterministicPaths;

    /// <summary>Every key a document of this policy may be encrypted with: the current key first, then the accepted ones.</summary>
    internal IEnumerable<string> ReadableKeyIds => _acceptedKeyIds.Prepend(DataEncryptionKeyId).Distinct(StringComparer.Ordinal);

    /// <summary>Whether writes encrypt by the policy when a request asks for nothing.</summary>
    internal bool EncryptsWrites => _plaintextPolicy != PlaintextPolicy.WritePlaintextReadBoth;

    /// <summary>
    /// The options a write under this policy encrypts with: its key, algorithm, paths and which of them are
    /// deterministic. The one place that turns a policy into write options (the container's writes and the
    /// migration job's rewrites both take them from here). A new instance per call: the options type is mutable.
    /// </summary>
    internal EncryptionOptions CreateWriteOptions() => new()
    {
        DataEncryptionKeyId = DataEncryptionKeyId,
        EncryptionAlgorithm = EncryptionAlgorithm,
        PathsToEncrypt = _paths,
        DeterministicPaths = _deterministicPaths.Length == 0 ? null : _deterministicPaths,
    };

    /// <summary>Whether documents may be read with the key <paramref name="dataEncryptionKeyId"/>.</summary>
    internal bool AcceptsKey(string dataEncryptionKeyId)
    {
        if (string.Equals(dataEncryptionKeyId, DataEncryptionKeyId, StringComparison.Ordinal))
        {
            return true;
        }

        IReadOnlyList<string> accepted = _acceptedKeyIds;
        for (int i = 0; i < accepted.Count; i++)
        {
            if (string.Equals(dataEncryptionKeyId, accepted[i], StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }

    private static List<EncryptionPolicyIncludedPath> ToIncludedPaths(IEnumerable<string> paths)
    {
        ArgumentNullException.ThrowIfNull(paths);
        var entries = new List<EncryptionPolicyIncludedPath>();
        foreach (string path in paths)
        {
            entries.Add(new EncryptionPolicyIncludedPath(path));
        }

        return entries;
    }
}
