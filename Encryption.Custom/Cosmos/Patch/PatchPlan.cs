using Encryption.Custom.Json.Rules;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// A patch as far as it can be judged before the document is read: the caller's operations classified
/// (<see cref="PatchClassifier"/>) against the paths the request's options write, of whatever format. A single patch
/// and a patch inside a transactional batch are both planned here and rewritten by <see cref="PatchRewriter"/>.
/// </summary>
internal sealed class PatchPlan
{
    private PatchPlan(IReadOnlyList<PatchOperation> operations, EncryptionOptions? requested, PatchSelectors? selectors, ClassifiedOperation[] classified)
    {
        Operations = operations;
        Requested = requested;
        Selectors = selectors;
        Classified = classified;
    }

    /// <summary>The caller's operations.</summary>
    public IReadOnlyList<PatchOperation> Operations { get; }

    /// <summary>
    /// What a write of this document encrypts (the request's options or the container's policy), or
    /// <see langword="null"/>: then nothing may be replaced, since a replace would store the document unencrypted.
    /// </summary>
    public EncryptionOptions? Requested { get; }

    /// <summary>The paths of the plan <see cref="Requested"/> writes (bound to the container when the policy binds), or <see langword="null"/>.</summary>
    public PatchSelectors? Selectors { get; }

    /// <summary>The operations classified against <see cref="Selectors"/>.</summary>
    public ClassifiedOperation[] Classified { get; }

    /// <summary>Whether the request writes format 101 (nested selectors, bound cells, query tokens, an encrypted id).</summary>
    public bool WritesExtendedFormat => Selectors?.Plan is { IsExtendedFormat: true };

    /// <summary>The key the request writes with, for messages.</summary>
    public string? DataEncryptionKeyId => Requested?.DataEncryptionKeyId;

    /// <summary>Classifies <paramref name="operations"/>; refuses what no rewrite can make right.</summary>
    /// <exception cref="EncryptionException">An operation is refused (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    public static PatchPlan Create(IReadOnlyList<PatchOperation> operations, EncryptionOptions? requested, PatchSelectors? selectors) =>
        new(operations, requested, selectors, PatchClassifier.Classify(operations, selectors));

    /// <summary>Whether an operation writes or moves a value where the request's plan encrypts.</summary>
    public bool WritesEncryptedValues => Array.Exists(Classified, static c => c.WritesEncryptedValue || c.MovesEncryptedValue);
}
