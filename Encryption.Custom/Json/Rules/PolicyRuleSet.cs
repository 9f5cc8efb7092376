using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Rules;

/// <summary>
/// A container encryption policy compiled once into the rules every enforcement point consumes: write resolution,
/// patch and batch, both processors' read checks, the migration classifier and the query guard. The JSON layer
/// owns this type; the public policy type compiles into it (docs/policy.md, "One compiled policy").
/// </summary>
/// <remarks>
/// Immutable and safe for concurrent use. Name lookups are O(1) in the number of paths (the compiled
/// <see cref="EncryptionPlan"/>'s tables). A name is "at a policy path" when it equals the path's property name
/// ignoring case (ordinal), as serializers bind it; only an exact match is where the value is encrypted.
/// </remarks>
internal sealed class PolicyRuleSet
{
    private readonly PathRule[] _rules;
    private readonly string[] _readableKeyIds;
    private readonly string[] _paths;
    private readonly string[] _deterministicPaths;
    private readonly Tokens.QueryTokenRule?[]? _queryTokens;

    /// <param name="keys">The key writes encrypt with, its algorithm, and the other keys documents may be encrypted with.</param>
    /// <param name="rules">The rules, in the policy's order (indexes 0..n-1).</param>
    /// <param name="modes">What reads and writes do (<see cref="PolicyModes"/>).</param>
    /// <param name="binding">The container to bind to (used only when <see cref="PolicyModes.Binds"/>).</param>
    /// <exception cref="EncryptionException">The key, algorithm or paths are invalid (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    public PolicyRuleSet(PolicyKeys keys, IReadOnlyList<PathRule> rules, PolicyModes modes, BindingTarget? binding = null)
    {
        _rules = [.. rules];
        _paths = [.. _rules.Select(r => r.Text)];
        _deterministicPaths = [.. _rules.Where(r => r.IsDeterministic).Select(r => r.Text)];
        _queryTokens = _rules.Any(r => r.QueryTokens is not null) ? [.. _rules.Select(r => r.QueryTokens)] : null;
        if (modes.Commits && !modes.Binds)
        {
            JsonErrors.ThrowInvalidOptions("The document commitment (Commit) needs binding (Bind): the commitment covers the binding's document digest.");
        }

        Modes = modes;
        Plan = EncryptionPlan.Create(keys.DataEncryptionKeyId, keys.EncryptionAlgorithm, _paths, _deterministicPaths, modes.Binds && binding is not null ? binding.WithCommit(modes.Commits) : null, _queryTokens);
        DataEncryptionKeyId = keys.DataEncryptionKeyId;
        EncryptionAlgorithm = keys.EncryptionAlgorithm;
        _readableKeyIds = [.. keys.AcceptedKeyIds.Prepend(keys.DataEncryptionKeyId).Distinct(StringComparer.Ordinal)];
    }

    /// <summary>What reads and writes under these rules do.</summary>
    public PolicyModes Modes { get; }

    /// <summary>The key every write encrypts with.</summary>
    public string DataEncryptionKeyId { get; }

    /// <summary>The algorithm.</summary>
    public string EncryptionAlgorithm { get; }

    /// <summary>Whether reads refuse plaintext at a policy path (strict mode); otherwise it is counted.</summary>
    public bool ForbidsPlaintext => Modes.ForbidsPlaintext;

    /// <summary>Whether writes that ask for nothing are encrypted by these rules.</summary>
    public bool EncryptsWrites => Modes.EncryptsWrites;

    /// <summary>
    /// Whether the policy binds values to their document (<c>Bind</c>). Only a rule set bound to a container
    /// (<see cref="BindTo"/>) can write or verify bound cells; one that binds without a target refuses writes.
    /// </summary>
    public bool Binds => Modes.Binds;

    /// <summary>Whether documents carry, and reads verify, the document commitment (<c>Commit</c>; needs <see cref="Binds"/>).</summary>
    public bool Commits => Modes.Commits;

    /// <summary>The same rules bound to the container <paramref name="target"/> (scope and partition-key paths).</summary>
    public PolicyRuleSet BindTo(BindingTarget target) =>
        new(new PolicyKeys(DataEncryptionKeyId, EncryptionAlgorithm, _readableKeyIds.Skip(1)), _rules, Modes, target);

    /// <summary>The rules, in the policy's order.</summary>
    public IReadOnlyList<PathRule> Rules => _rules;

    /// <summary>The compiled names (the processors' lookup tables); rule <c>i</c> is plan path <c>i</c>.</summary>
    public EncryptionPlan Plan { get; }

    /// <summary>Per rule, its query-token declaration or <see langword="null"/>; <see langword="null"/> itself when no path declares one.</summary>
    public IReadOnlyList<Tokens.QueryTokenRule?>? QueryTokens => _queryTokens;

    /// <summary>The paths as written, in order.</summary>
    public IReadOnlyList<string> Paths => _paths;

    /// <summary>The paths encrypted deterministically, in order.</summary>
    public IReadOnlyList<string> DeterministicPaths => _deterministicPaths;

    /// <summary>Every key a document may be encrypted with: the current key first, then the accepted ones.</summary>
    public IReadOnlyList<string> ReadableKeyIds => _readableKeyIds;

    /// <summary>The rule at <paramref name="index"/>.</summary>
    public PathRule this[int index] => _rules[index];

    /// <summary>Whether documents may be encrypted with <paramref name="dataEncryptionKeyId"/> (the current key or an accepted one).</summary>
    public bool AcceptsKey(string? dataEncryptionKeyId)
    {
        if (dataEncryptionKeyId is null)
        {
            return false;
        }

        string[] ids = _readableKeyIds;
        for (int i = 0; i < ids.Length; i++)
        {
            if (string.Equals(dataEncryptionKeyId, ids[i], StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>The rule whose property name is <paramref name="name"/>, exactly or ignoring case.</summary>
    public NameMatch Match(string name, out PathRule? rule)
    {
        int index = Plan.FindPath(name);
        if (index >= 0)
        {
            rule = _rules[index];
            return NameMatch.Exact;
        }

        index = Plan.FindPathIgnoringCase(name);
        rule = index >= 0 ? _rules[index] : null;
        return index >= 0 ? NameMatch.CaseVariant : NameMatch.None;
    }

    /// <summary>
    /// The index of the rule whose property name equals <paramref name="utf8Name"/> (unescaped) exactly or
    /// ignoring case, or -1: the read side's "is this value at a policy path". O(1), no allocation.
    /// </summary>
    /// <remarks>One lookup: the policy refuses two paths whose names differ only in case, so the match is unique.</remarks>
    public int FindAtPath(ReadOnlySpan<byte> utf8Name) => Plan.FindPathIgnoringCase(utf8Name);

    /// <inheritdoc cref="FindAtPath(ReadOnlySpan{byte})"/>
    public int FindAtPath(string name) => Plan.FindPathIgnoringCase(name);

    /// <summary>
    /// The options a write under these rules encrypts with: the key, algorithm, paths and deterministic ones. A new
    /// instance per call (the options type is mutable); the one place that turns a policy into write options.
    /// </summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.InvalidOptions"/>: the policy binds but these rules know no container.</exception>
    public EncryptionOptions CreateWriteOptions() => Binds && Plan.Binding is null
        ? throw new EncryptionException(
            EncryptionErrorKind.InvalidOptions,
            "The container's encryption policy binds values to their document (Bind), but these rules were not bound to a container's scope and partition-key paths: nothing is written unbound in its place.",
            DataEncryptionKeyId)
        : BuildWriteOptions(Plan.Binding);

    /// <summary>
    /// <see cref="CreateWriteOptions()"/> for a container that binds its rules only when it first encrypts: what the
    /// options will encrypt, bound to <paramref name="binding"/> (<see langword="null"/>: bound later, by the one
    /// place that encrypts bodies, which refuses to encrypt them unbound under rules that bind).
    /// </summary>
    internal EncryptionOptions BuildWriteOptions(BindingTarget? binding) => new()
    {
        DataEncryptionKeyId = DataEncryptionKeyId,
        EncryptionAlgorithm = EncryptionAlgorithm,
        PathsToEncrypt = _paths,
        DeterministicPaths = _deterministicPaths.Length == 0 ? null : _deterministicPaths,
        Binding = binding,
        QueryTokens = _queryTokens,
    };
}
