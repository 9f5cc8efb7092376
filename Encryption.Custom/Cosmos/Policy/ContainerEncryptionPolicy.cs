using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom;

/// <summary>
/// What an encryption container encrypts without being asked, and what it refuses to read: the data encryption
/// key, the algorithm, the paths, the previous keys still accepted on reads, and the <see cref="PlaintextPolicy"/>.
/// Given to <see cref="EncryptionContainerExtensions.WithEncryptor"/> through <see cref="EncryptionContainerOptions.Policy"/>.
/// </summary>
/// <remarks>
/// Immutable and validated when built, with the rules of <see cref="EncryptionOptions"/> (top-level paths
/// <c>/name</c> or nested selectors such as <c>/cards/[]/number</c>; no repeats or overlaps, not <c>/id</c>,
/// <c>/_ei</c> or <c>/_ex</c>; a non-empty key id; the current algorithm), plus: at least one path. Paths that hold the container's partition key are refused by the container before its first write.
/// Semantics, modes and limits: docs/policy.md.
/// </remarks>
public sealed partial class ContainerEncryptionPolicy
{
    private readonly PathRule[] _pathRules;
    private readonly string _encryptionAlgorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;
    private readonly PlaintextPolicy _plaintextPolicy;
    private readonly IReadOnlyList<string> _acceptedKeyIds = [];

    /// <summary>Creates a policy that encrypts <paramref name="paths"/> with <paramref name="dataEncryptionKeyId"/>.</summary>
    /// <param name="dataEncryptionKeyId">The key every write encrypts with.</param>
    /// <param name="paths">The paths, such as <c>/ssn</c> or <c>/address/city</c>, exactly as the stored property names (case matters).</param>
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
        var paths = new (string Path, bool Deterministic)[entries.Length];
        for (int i = 0; i < entries.Length; i++)
        {
            ArgumentNullException.ThrowIfNull(entries[i], nameof(includedPaths));
            paths[i] = (entries[i].Path, entries[i].EncryptionType == PathEncryptionType.Deterministic);
        }

        if (paths.Length == 0)
        {
            JsonErrors.ThrowInvalidOptions("An encryption policy must list at least one path.", dataEncryptionKeyId);
        }

        IncludedPaths = entries;
        DataEncryptionKeyId = dataEncryptionKeyId;

        // Validated now (the constructor is where a bad path is reported); the rule set itself is built on first
        // use, once the init-only settings below are known.
        _pathRules = WithQueryTokens(PolicyPathCompiler.Compile(paths), entries);
        _ = Compile(_encryptionAlgorithm);
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
            _ = Compile(value);
            _encryptionAlgorithm = value;
        }
    }

    /// <summary>
    /// Whether each randomized value is bound to its document: its cell's tag covers the container, the document's id
    /// and partition key, and the value's path, so a cell copied into another document, moved to another path or into
    /// another container is refused (<see cref="EncryptionErrorKind.CellBindingMismatch"/>). Default
    /// <see langword="null"/>, automatic: a policy with a nested selector (such as <c>/address/city</c>) binds, since
    /// it writes the extended format (101) anyway, which Microsoft's package cannot read; a policy of top-level paths
    /// only does not, so its documents stay in format 3, readable by Microsoft's package. <see langword="true"/> binds
    /// a top-level policy too (format 101); <see langword="false"/> keeps a nested policy unbound.
    /// Deterministic paths stay unbound (equality queries need equal ciphertext across documents).
    /// </summary>
    /// <remarks>
    /// The encryption container binds to "&lt;database id&gt;/&lt;container id&gt;" and the partition-key paths it reads
    /// from the container's definition once, before its first write or decrypt; a container whose partition key is a
    /// nested path cannot bind (its operations fail with <see cref="EncryptionErrorKind.InvalidOptions"/>). Patch
    /// refuses encrypted paths under a policy that binds (replace the document instead). docs/policy.md "Binding".
    /// </remarks>
    public bool? Bind { get; init; }

    /// <summary>
    /// Whether each document also carries a document commitment: a MAC in its anchor over which cells it holds, so a
    /// cell removed or set to <see langword="null"/>, a cell of an older version of the same document put back, or
    /// values reordered are refused (<see cref="EncryptionErrorKind.CellBindingMismatch"/>, the message naming the
    /// commitment). Default <see langword="false"/>. Needs binding (<see cref="Bind"/>, or a nested selector with
    /// <see cref="Bind"/> unset); a policy that commits without binding is refused
    /// (<see cref="EncryptionErrorKind.InvalidOptions"/>).
    /// </summary>
    /// <remarks>
    /// Not on accounts with several write regions (a merge by conflict resolution would never recompute the
    /// commitment): the container refuses it there, checked once with the container's definition; regions added later
    /// are not noticed. A patch of a committed document is applied by the conditional replace
    /// (<see cref="EncryptionContainerOptions.PatchFallbackToReplace"/>). Does not detect a whole document replaced by
    /// an older version of itself. docs/policy.md "Binding", docs/wire-format.md "Document commitment".
    /// </remarks>
    public bool Commit { get; init; }

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

    /// <summary>
    /// The policy compiled into the rules every enforcement point consumes (writes, patch, batch, both processors'
    /// read checks, the query guard, the migration classifier). Built once, on first use after construction.
    /// </summary>
    internal PolicyRuleSet Rules => field ??= Compile(_encryptionAlgorithm);

    /// <summary>The compiled, validated paths (<see cref="PolicyRuleSet.Plan"/>).</summary>
    internal EncryptionPlan Plan => Rules.Plan;

    /// <summary>The paths encrypted deterministically, in order (empty when all are randomized).</summary>
    internal IReadOnlyList<string> DeterministicPaths => Rules.DeterministicPaths;

    /// <summary>Every key a document of this policy may be encrypted with: the current key first, then the accepted ones.</summary>
    internal IEnumerable<string> ReadableKeyIds => Rules.ReadableKeyIds;

    /// <summary>
    /// Whether the policy binds: <see cref="Bind"/> when set, otherwise whether any path is a nested selector. Decided
    /// from the paths alone, never per document, so every document of a policy has one format.
    /// </summary>
    internal bool Binds => Bind ?? HasNestedSelector(_pathRules);

    /// <summary>Whether writes encrypt by the policy when a request asks for nothing.</summary>
    internal bool EncryptsWrites => _plaintextPolicy != PlaintextPolicy.WritePlaintextReadBoth;

    /// <inheritdoc cref="PolicyRuleSet.CreateWriteOptions"/>
    internal EncryptionOptions CreateWriteOptions() => Rules.CreateWriteOptions();

    /// <summary>Whether documents may be read with the key <paramref name="dataEncryptionKeyId"/>.</summary>
    internal bool AcceptsKey(string dataEncryptionKeyId) => Rules.AcceptsKey(dataEncryptionKeyId);

    // Races are benign: two threads build equal, immutable rule sets and one is kept. A policy that encrypts the id is
    // checked for what an encrypted key needs here; the partition key's path is known only from the container, so
    // LookupKeys checks it on first use by the same rule.
    private PolicyRuleSet Compile(string algorithm)
    {
        var rules = new PolicyRuleSet(
            new PolicyKeys(DataEncryptionKeyId, algorithm, _acceptedKeyIds),
            _pathRules,
            new PolicyModes(
                ForbidsPlaintext: _plaintextPolicy == PlaintextPolicy.WriteEncryptedForbidPlaintext,
                EncryptsWrites: _plaintextPolicy != PlaintextPolicy.WritePlaintextReadBoth,
                Binds: Binds,
                Commits: Commit));
        if (rules.Plan.EncryptsId)
        {
            Encryption.Custom.Cosmos.Lookups.LookupKeys.CheckKeyPolicy(rules, IdCellText.Path);
        }

        return rules;
    }

    // Each declaration compiled onto its rule; one that cannot work is refused here, naming the path and why.
    private static PathRule[] WithQueryTokens(PathRule[] rules, EncryptionPolicyIncludedPath[] entries)
    {
        foreach (EncryptionPolicyIncludedPath entry in entries)
        {
            if (entry.Queries is not { } queries)
            {
                continue;
            }

            int index = Array.FindIndex(rules, r => r.Text == entry.Path);
            if (entry.Path == IdCellText.Path)
            {
                JsonErrors.ThrowInvalidPath(entry.Path, "the document id cannot declare range or prefix queries: it is looked up by equality.");
            }

            if (rules[index].Path.Segments.Contains(RulePath.ArrayWildcard))
            {
                JsonErrors.ThrowInvalidPath(entry.Path, "range and prefix queries are not served under an array ('[]'): such a selector picks any number of values per document, and tokens need one.");
            }

            if (index >= 64)
            {
                JsonErrors.ThrowInvalidPath(entry.Path, "range and prefix queries are served on the first 64 paths of a policy only (readers track them in one 64-bit set).");
            }

            try
            {
                rules[index] = rules[index] with { QueryTokens = queries.Compile(entry.Path) };
            }
            catch (ArgumentException exception)
            {
                JsonErrors.ThrowInvalidPath(entry.Path, $"its {(queries is PrefixQueryOptions ? "prefix" : "range")} query declaration cannot work: {exception.Message}");
            }
        }

        return rules;
    }

    private static bool HasNestedSelector(PathRule[] rules)
    {
        foreach (PathRule rule in rules)
        {
            if (rule.Path.Depth > 1)
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
