using System.Globalization;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Json;
using Encryption.Custom.Json.Inspection;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Migration;

/// <summary>
/// The state a migration brings documents to (a <see cref="ContainerEncryptionPolicy"/>, or no encryption) and the
/// keys it may read documents with; decides, from a document's inspection by the chosen processor
/// (<see cref="DocumentInspector"/>), whether it is already there. The job and the status query both ask here, so they
/// agree on "done".
/// </summary>
/// <remarks>
/// In the target state means: the policy's key and algorithm, the policy's format (3, or 101 when the policy has
/// nested selectors or binds) and binding, exactly the policy's paths, no value at a policy position that the metadata
/// does not list, and each top-level path encrypted as the policy says: deterministic, randomized, or (binding)
/// bound. A bound cell says so itself; whether an unbound one is deterministic is not in the metadata nor the cell:
/// with an encryptor, the values are decrypted and their IV recomputed. Without one (the keyless status query) it is
/// not checked. Query tokens (<c>_q</c>) too: exactly the members the policy declares, and, with an encryptor, each
/// unbound value's tokens its own (<see cref="Json.Tokens.QueryTokenCheck"/>, the strict reader's check); a
/// <c>_q</c> no writer of this library produces is refused.
/// </remarks>
internal sealed class MigrationTarget
{
    private readonly HashSet<string> _sourceKeys;
    private readonly Encryptor? _encryptor;
    private readonly DocumentInspector _inspector;
    private readonly int _maxDepth;

    // Every policy path (top-level and nested selector) by its text, with its plan index.
    private readonly Dictionary<string, int> _policyPaths = new(StringComparer.Ordinal);

    /// <param name="policy">The target policy, or <see langword="null"/> for "decrypt everything".</param>
    /// <param name="acceptedSourceKeyIds">Keys documents may be read with besides the policy's.</param>
    /// <param name="encryptor">The keys to check each path's encryption type with; <see langword="null"/> to leave it unchecked.</param>
    /// <param name="processor">The processor whose rules judge documents (<see cref="EncryptionMigrationOptions.JsonProcessor"/>).</param>
    /// <param name="maxDepth">The deepest nesting accepted.</param>
    public MigrationTarget(ContainerEncryptionPolicy? policy, IEnumerable<string> acceptedSourceKeyIds, Encryptor? encryptor, JsonProcessor processor = JsonProcessor.Stream, int maxDepth = EncryptionProcessorOptions.DefaultMaxDepth)
    {
        ArgumentNullException.ThrowIfNull(acceptedSourceKeyIds);
        Policy = policy;
        _encryptor = encryptor;
        _inspector = DocumentInspector.For(processor);
        _maxDepth = maxDepth;
        _sourceKeys = new HashSet<string>(StringComparer.Ordinal);
        foreach (string id in acceptedSourceKeyIds)
        {
            ArgumentException.ThrowIfNullOrWhiteSpace(id, nameof(acceptedSourceKeyIds));
            _sourceKeys.Add(id);
        }

        if (policy is not null)
        {
            _sourceKeys.Add(policy.DataEncryptionKeyId);
            foreach (string id in policy.AcceptedDataEncryptionKeyIds)
            {
                _sourceKeys.Add(id);
            }

            Rules = policy.Rules;

            // A binding target's writes wait for the container (Bind); any other is ready now.
            WriteOptions = Rules.Binds ? null : Rules.CreateWriteOptions();
            EncryptionPlan plan = Rules.Plan;
            for (int i = 0; i < plan.PathCount; i++)
            {
                _policyPaths[plan.GetPath(i)] = i;
            }

            FormatVersion = plan.IsExtendedFormat || Rules.Binds ? EncryptionEnvelope.ExtendedFormatVersion : EncryptionEnvelope.CurrentFormatVersion;
        }
    }

    /// <summary>The target policy, or <see langword="null"/> for "decrypt everything".</summary>
    public ContainerEncryptionPolicy? Policy { get; }

    /// <summary>The target policy compiled, or <see langword="null"/> for "decrypt everything".</summary>
    public PolicyRuleSet? Rules { get; }

    /// <summary>
    /// What a rewrite encrypts with; <see langword="null"/> when the target is plaintext, or when it binds and
    /// <see cref="Bind"/> has not given it the container yet (a rewrite then refuses rather than write unbound).
    /// </summary>
    public EncryptionOptions? WriteOptions { get; private set; }

    /// <summary>
    /// Rules that read bound documents (format 101 with <c>bind</c>) in the container <see cref="Bind"/> was given:
    /// the target's paths (whose deterministic ones say which cells are not bound), every source key accepted,
    /// plaintext counted rather than refused; <see langword="null"/> before <see cref="Bind"/>, or without a target policy.
    /// </summary>
    public PolicyRuleSet? BoundReadRules { get; private set; }

    // The target's rules bound to the container once it is known (Bind), for inspection; else Rules.
    private PolicyRuleSet? _inspectionRules;

    /// <summary>
    /// Gives the target the container its documents live in (scope and partition-key paths): a target that binds
    /// writes bound cells there, and bound source documents can be read.
    /// </summary>
    /// <exception cref="EncryptionException">
    /// <see cref="EncryptionErrorKind.InvalidOptions"/>: the target binds and the container cannot be bound (for
    /// example a nested partition-key path).
    /// </exception>
    public void Bind(string scope, IReadOnlyList<string> partitionKeyPaths)
    {
        if (Rules is not { } rules)
        {
            return;
        }

        BindingTarget target;
        try
        {
            target = new BindingTarget(scope, partitionKeyPaths);
        }
        catch (EncryptionException) when (!rules.Binds)
        {
            // Nothing is written bound; bound source documents (if any) are reported one by one when read.
            return;
        }

        // Inspection with the container known: the tokens of bound cells can be checked too (their cells decrypt).
        _inspectionRules = rules.BindTo(target);
        BoundReadRules = new PolicyRuleSet(new PolicyKeys(rules.DataEncryptionKeyId, rules.EncryptionAlgorithm, _sourceKeys), rules.Rules, new PolicyModes(ForbidsPlaintext: false, EncryptsWrites: false, Binds: true), target);
        if (rules.Binds)
        {
            WriteOptions = rules.BindTo(target).CreateWriteOptions();
        }
    }

    /// <summary>The format documents in the target state have: 3, 101 (nested selectors or binding), or 0 (plaintext).</summary>
    public int FormatVersion { get; }

    /// <summary>Whether <see cref="Classify(DocumentInspection)"/> checks each path's encryption type (it needs the key) or there is none to check.</summary>
    public bool ChecksEncryptionTypes => Policy is null || _encryptor is not null;

    /// <summary>The keys documents may be read with: the accepted source keys, the policy's key and its accepted keys.</summary>
    public IReadOnlyCollection<string> SourceKeyIds => _sourceKeys;

    /// <summary>Whether the job may decrypt a document encrypted with <paramref name="dataEncryptionKeyId"/>.</summary>
    public bool AcceptsSourceKey(string dataEncryptionKeyId) => _sourceKeys.Contains(dataEncryptionKeyId);

    /// <summary>
    /// Leases the key <see cref="Classify(DocumentInspection)"/> checks encryption types with (the target key), for one page or document.
    /// A default lease when nothing is checked. A key that cannot be had gives a default lease too: the documents
    /// that need it are then reported by <see cref="Classify(DocumentInspection)"/> (<see cref="EncryptionErrorKind.KeyUnavailable"/>),
    /// as their rewrite would be, and the others are judged as usual.
    /// </summary>
    public async ValueTask<DataEncryptionKeyLease> LeaseCheckKeyAsync(CancellationToken cancellationToken)
    {
        if (_encryptor is null || Policy is not { } policy)
        {
            return default;
        }

        try
        {
            return await _encryptor.LeaseEncryptionKeyAsync(policy.DataEncryptionKeyId, policy.EncryptionAlgorithm, cancellationToken).ConfigureAwait(false);
        }
        catch (EncryptionException)
        {
            return default;
        }
    }

    /// <summary>Inspects one document with the chosen processor, against the target policy, with the key from <see cref="LeaseCheckKeyAsync"/>.</summary>
    public DocumentInspection Inspect(ReadOnlySpan<byte> document, in DataEncryptionKeyLease checkKey)
    {
        DataEncryptionKey? key = _encryptor is null ? null : checkKey.Key;
        string? keyId = Policy?.DataEncryptionKeyId;
        Func<string, DataEncryptionKey?>? keys = key is null ? null : id => string.Equals(id, keyId, StringComparison.Ordinal) ? key : null;
        return _inspector.Inspect(document, new InspectionRequest(_maxDepth, _inspectionRules ?? Rules, keys));
    }

    /// <summary>Classifies one document: inspects it (<see cref="Inspect"/>) and judges the inspection (<see cref="Classify(DocumentInspection)"/>).</summary>
    /// <exception cref="EncryptionException">See <see cref="Classify(DocumentInspection)"/>.</exception>
    public DocumentState Classify(ReadOnlySpan<byte> document, in DataEncryptionKeyLease checkKey) => Classify(Inspect(document, checkKey));

    /// <summary>Judges one inspected document against the target.</summary>
    /// <exception cref="EncryptionException">
    /// The document or its metadata is malformed or unsupported, a value to check is not authentic, or the key to
    /// check it with is unavailable.
    /// </exception>
    public DocumentState Classify(DocumentInspection inspection)
    {
        if (inspection.State == InspectedState.Unreadable)
        {
            throw inspection.Error!;
        }

        // A '_q' this library never writes is tampering, refused like a value that does not authenticate, whatever the
        // target: a rewrite would drop or recompute it and so hide the tampering.
        if (inspection.QueryTokenError is { } tokenError)
        {
            throw tokenError;
        }

        bool encrypted = inspection.Encrypted;
        PolicyRuleSet? policy = Rules;
        if (policy is null)
        {
            return new DocumentState(encrypted, inspection.KeyId, inspection.FormatVersion, HasPlaintext: false, HasOtherPaths: false, InTarget: !encrypted) { HasStaleQueryTokens = inspection.HasQueryTokenFeature };
        }

        // A value shaped like ciphertext that the metadata does not list is never plaintext: the document is outside
        // the target state, and the job reports it instead of encrypting the ciphertext a second time.
        bool found = inspection.Unlisted is not null;
        bool cells = inspection.Unlisted is { CellShaped: true };
        bool plaintext = found && !cells;
        if (!encrypted)
        {
            return new DocumentState(false, null, 0, plaintext, HasOtherPaths: false, InTarget: !found, HasUnlistedCipherText: cells);
        }

        bool otherPaths = inspection.State == InspectedState.LegacyBlob || inspection.Paths.Any(p => !_policyPaths.ContainsKey(p.Path));
        bool staleTokens = !HasPolicyQueryTokens(inspection, policy.Plan);
        bool inTarget = !found && !otherPaths && !staleTokens
            && inspection.FormatVersion == FormatVersion
            && inspection.Bound == policy.Binds
            && string.Equals(inspection.KeyId, policy.DataEncryptionKeyId, StringComparison.Ordinal)
            && string.Equals(inspection.Algorithm, policy.EncryptionAlgorithm, StringComparison.Ordinal);
        if (inTarget && _encryptor is not null)
        {
            inTarget = HasPolicyEncryptionTypes(inspection, policy);
        }

        return new DocumentState(true, inspection.KeyId, inspection.FormatVersion, plaintext, otherPaths, inTarget, cells) { HasStaleQueryTokens = staleTokens };
    }

    /// <summary>
    /// The error that reports a document <see cref="Classify(DocumentInspection)"/> found holding a value shaped like
    /// ciphertext that its metadata does not list: <see cref="EncryptionErrorKind.UnlistedCipherText"/> when a key of
    /// the target policy authenticates it, else why not (tampered, or a key unavailable). Without an encryptor the
    /// value is not verified.
    /// </summary>
    public EncryptionException DescribeUnlistedCipherText(DocumentInspection inspection)
    {
        PolicyRuleSet rules = Rules!;
        UnlistedValue? unlisted = inspection.Unlisted;
        if (unlisted is not { CellShaped: true, CellBase64: { } base64 } || _encryptor is null)
        {
            // Without the key check, the anchor still tells a lost envelope from ciphertext pasted into plaintext.
            return inspection.EnvelopeMissing
                ? PolicyReadCheck.CreateCellError(rules, unlisted?.Path ?? "?", inspection.Id, authenticatingKeyId: null, unavailableKeyId: null, envelopeMissing: true)
                : new EncryptionException(
                    EncryptionErrorKind.UnlistedCipherText,
                    $"The document holds a value shaped like an encrypted value at '{unlisted?.Path ?? "?"}' that its encryption metadata does not list: it is not encrypted again.",
                    rules.DataEncryptionKeyId,
                    unlisted?.Path);
        }

        // A format 101 document that lost '_ei' but kept its anchor: "missing metadata", as the reader says (a bound
        // cell's MAC covers what the lost metadata described, so no key authenticates it, and "tampered" or "another
        // key" would send the operator after the wrong cause).
        string? keyId = EncryptedCell.FindAuthenticatingKey(_encryptor, rules.ReadableKeyIds, rules.EncryptionAlgorithm, base64, out string? unavailable);
        return PolicyReadCheck.CreateCellError(rules, unlisted.Path, inspection.Id, keyId, unavailable, inspection.EnvelopeMissing);
    }

    // The document's query tokens are exactly what the plan declares (docs/queries.md "Range and prefix queries"): none
    // when it declares none; else the 'qt' feature, one '_q' member for each declared path whose value the document
    // holds and no other (a member for a path the plan no longer declares is dropped by the rewrite), and, where the
    // inspection had the key, each value's tokens its own (QueryTokenCheck.Verify: a value changed under its tokens,
    // tokens under another key or another declaration), top-level paths and nested selectors alike. Bound cells are
    // checked once the container is known (Bind); before that, and under another key, tokens stay unchecked here, as
    // the keyless status query keeps all of them.
    private static bool HasPolicyQueryTokens(DocumentInspection inspection, EncryptionPlan plan)
    {
        if (!plan.HasQueryTokens)
        {
            return !inspection.HasQueryTokenFeature;
        }

        if (!inspection.HasQueryTokenFeature || inspection.QueryTokenMembers is not { } members)
        {
            return false;
        }

        int expected = 0;
        foreach (InspectedPath path in inspection.Paths)
        {
            if (path.Type == InspectedCellType.Absent || path.Tokens == InspectedTokens.NoValue || plan.IndexOf(path.Path) is not (>= 0 and int index) || plan.GetQueryTokens(index) is null)
            {
                continue;
            }

            if (path.Tokens == InspectedTokens.Stale || !members.Contains(path.Path, StringComparer.Ordinal))
            {
                return false;
            }

            expected++;
        }

        // Every expected member is present and members are distinct (the inspection refuses duplicates): equal counts
        // leave no extra one.
        return members.Count == expected;
    }

    // Every listed top-level value of a document whose paths are all the policy's: bound, deterministic or randomized
    // as the policy says (nested selectors' values are judged by their listing and the format's binding).
    private bool HasPolicyEncryptionTypes(DocumentInspection inspection, PolicyRuleSet policy)
    {
        EncryptionPlan plan = policy.Plan;
        foreach (InspectedPath path in inspection.Paths)
        {
            if (path.Nested || path.Type == InspectedCellType.Absent)
            {
                continue;
            }

            if (path.Type == InspectedCellType.NotAuthentic)
            {
                throw inspection.TypeError!;
            }

            bool deterministic = plan.IsDeterministic(_policyPaths[path.Path]);
            if (path.Type == InspectedCellType.Unchecked)
            {
                throw new EncryptionException(
                    EncryptionErrorKind.KeyUnavailable,
                    string.Create(CultureInfo.InvariantCulture, $"The data encryption key '{UntrustedText.Shorten(inspection.KeyId!)}' is unavailable, so whether the document's values are encrypted deterministically or randomized, as the target policy says, cannot be checked."),
                    inspection.KeyId);
            }

            InspectedCellType expected = deterministic ? InspectedCellType.Deterministic
                : policy.Binds ? InspectedCellType.Bound
                : InspectedCellType.Randomized;
            if (path.Type != expected)
            {
                return false;
            }
        }

        return true;
    }
}
