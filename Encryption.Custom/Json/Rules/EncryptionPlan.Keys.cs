using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Rules;

/// <summary>The plan's part of encrypted ids (docs/container.md "Encrypted ids and partition keys") and its format features.</summary>
internal sealed partial class EncryptionPlan
{
    /// <summary>
    /// Whether the document id is encrypted (<c>/id</c>, deterministic, stored in the URL-safe alphabet by
    /// <see cref="IdCellText"/>): written in format 101 with the critical feature <c>id</c>.
    /// </summary>
    public bool EncryptsId { get; }

    // The document id is encrypted only deterministically: lookups need one ciphertext per id. (Bound documents bind
    // to the stored id: StoredKeyTokens.)
    private static void CheckId(string[] paths, IReadOnlyCollection<string>? deterministicPaths)
    {
        if (Array.IndexOf(paths, IdCellText.Path) >= 0)
        {
            IdCellText.ThrowUnlessDeterministic(deterministicPaths?.Contains(IdCellText.Path) == true);
        }
    }

    // The critical features a format 101 document of this plan lists (ExtendedEnvelope.CreatePrefix).
    private static ExtendedFeatureSet Features(bool selectors, bool bind, bool commit, bool queryTokens, bool id) =>
        (selectors ? ExtendedFeatureSet.Selectors : 0)
        | (bind ? ExtendedFeatureSet.Bind : 0)
        | (commit ? ExtendedFeatureSet.Commit : 0)
        | (queryTokens ? ExtendedFeatureSet.QueryTokens : 0)
        | (id ? ExtendedFeatureSet.Id : 0);
}
