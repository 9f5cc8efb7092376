using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// How one value is encrypted: deterministically (IV context prefix), bound (binding and selector), or neither;
/// whether its cell goes into the document commitment's chain; whether its query tokens are computed; and the path
/// and key id its errors name. One per value, on the stack.
/// </summary>
/// <remarks>
/// The chain itself travels beside it by ref: a ref field here would tie the target's lifetime to the reader's under
/// the ref-safety rules.
/// </remarks>
internal readonly ref struct CellTarget
{
    public readonly ReadOnlySpan<byte> Deterministic;
    public readonly CellBinding Binding;
    public readonly ReadOnlySpan<byte> Selector;
    public readonly bool Commit;
    public readonly QueryTokenRule? TokenRule;
    public readonly Span<byte> Tokens;

    /// <summary>The path the errors name.</summary>
    public readonly string Path;

    /// <summary>The key id the errors name.</summary>
    public readonly string KeyId;

    /// <summary>A value on its own (a patch value, a query parameter): never bound, committed or tokenized.</summary>
    /// <param name="deterministic">Empty for randomized paths; else the IV context prefix that binds the path.</param>
    /// <param name="path">The path (for errors).</param>
    /// <param name="keyId">The key id (for errors).</param>
    public CellTarget(ReadOnlySpan<byte> deterministic, string path, string keyId)
    {
        Deterministic = deterministic;
        Path = path;
        KeyId = keyId;
    }

    /// <summary>The value of the plan's path <paramref name="rule"/> in a document.</summary>
    /// <param name="plan">The plan: IV context, selector, path, key id, and whether cells are committed.</param>
    /// <param name="rule">The path's index in the plan.</param>
    /// <param name="binding">The document's binding, or the default value for an unbound cell. Deterministic values
    /// are never bound (wire-format.md "Bound cells"), whatever this says.</param>
    /// <param name="tokenRule">The path's query-token declaration when its tokens are computed, else <see langword="null"/>.</param>
    /// <param name="tokens">Where the tokens go (empty without <paramref name="tokenRule"/>).</param>
    public CellTarget(EncryptionPlan plan, int rule, CellBinding binding, QueryTokenRule? tokenRule = null, Span<byte> tokens = default)
    {
        Deterministic = plan.GetDeterministicPrefix(rule);
        Binding = binding;
        Selector = plan.GetSelector(rule);
        Commit = plan.Commits;
        TokenRule = tokenRule;
        Tokens = tokens;
        Path = plan.GetPath(rule);
        KeyId = plan.DataEncryptionKeyId;
    }
}
