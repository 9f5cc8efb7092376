using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom;

/// <summary>What to encrypt in a document and with which key: the paths, the data encryption key id and the algorithm.</summary>
/// <remarks>
/// The options are validated (and compiled into a lookup structure) on first use and re-validated whenever a
/// property or an element of <see cref="PathsToEncrypt"/> is replaced, so an instance can be reused for every
/// document without cost. Path rules: each path is <c>/</c> followed by a top-level property name, or a nested
/// selector such as <c>/address/city</c> or <c>/cards/[]/number</c> (which makes documents format 101); <c>/id</c>,
/// <c>/_ei</c> and <c>/_ex</c> are not allowed, and no path repeats or contains another (docs/policy.md, "Selectors").
/// </remarks>
public sealed class EncryptionOptions
{
    private volatile EncryptionPlan? _plan;

    /// <summary>The id of the data encryption key to encrypt with. Required.</summary>
    public string? DataEncryptionKeyId { get; set; }

    /// <summary>
    /// The algorithm, written to <c>_ea</c>. Default and only writable value:
    /// <see cref="CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized"/>.
    /// </summary>
    public string EncryptionAlgorithm { get; set; } = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    /// <summary>
    /// The values to encrypt, as paths such as <c>/ssn</c> (a top-level property) or <c>/cards/[]/number</c>. Required. A property that is absent or
    /// JSON <c>null</c> in a document is skipped (it stays visible, as <c>null</c> or absent) and is not listed in
    /// that document's metadata. An empty collection leaves documents unchanged. Any collection is accepted (an
    /// array, a <see cref="List{T}"/>, a <see cref="HashSet{T}"/>, as with Microsoft's package); it is read on every
    /// use, so a path added later is encrypted from then on. Lists and arrays are checked without allocating;
    /// other collections cost one enumerator per document.
    /// </summary>
    public IEnumerable<string>? PathsToEncrypt { get; set; }

    /// <summary>
    /// The paths among <see cref="PathsToEncrypt"/> encrypted deterministically: set only by a container from its
    /// encryption policy (compiled into <see cref="PolicyRuleSet"/>; the policy is the one public place that chooses it).
    /// </summary>
    internal IReadOnlyCollection<string>? DeterministicPaths { get; set; }

    // The container a container policy with Bind binds documents to (set by the Cosmos layer, never by callers).
    internal BindingTarget? Binding { get; set; }

    /// <summary>Per path of <see cref="PathsToEncrypt"/> in the plan's order, its query-token declaration (a container policy's choice; docs/queries.md "Range and prefix queries").</summary>
    internal IReadOnlyList<Json.Tokens.QueryTokenRule?>? QueryTokens { get; set; }

    /// <summary>
    /// A copy bound to <paramref name="binding"/>: every other setting carried over (the one place that copies options,
    /// so a setting added later cannot be dropped by one of the copies, as the query-token declarations once were).
    /// </summary>
    internal EncryptionOptions WithBinding(BindingTarget binding) => new()
    {
        DataEncryptionKeyId = DataEncryptionKeyId,
        EncryptionAlgorithm = EncryptionAlgorithm,
        PathsToEncrypt = PathsToEncrypt,
        DeterministicPaths = DeterministicPaths,
        QueryTokens = QueryTokens,
        Binding = binding,
    };

    /// <summary>Validates the options and returns their compiled form, reusing it while nothing changed.</summary>
    /// <exception cref="EncryptionException">The options are invalid (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    internal EncryptionPlan GetPlan()
    {
        EncryptionPlan? plan = _plan;
        if (plan is not null && plan.IsCompiledFrom(DataEncryptionKeyId, EncryptionAlgorithm, PathsToEncrypt, DeterministicPaths, Binding, QueryTokens))
        {
            return plan;
        }

        plan = EncryptionPlan.Create(DataEncryptionKeyId, EncryptionAlgorithm, PathsToEncrypt, DeterministicPaths, Binding, QueryTokens);
        _plan = plan;
        return plan;
    }
}
