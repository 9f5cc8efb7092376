namespace Encryption.Custom;

/// <summary>
/// Where a container's documents stand against a migration target, from
/// <c>EncryptionMigrationJob.GetStatusAsync</c> (and the job's verification): read from the stored metadata, and,
/// given an encryptor, from each path's encryption type (deterministic or randomized).
/// </summary>
public sealed class EncryptionMigrationStatus
{
    internal EncryptionMigrationStatus(
        long totalDocuments,
        long documentsInTargetState,
        IReadOnlyDictionary<string, long> documentsByDataEncryptionKeyId,
        long unencryptedDocuments,
        long plaintextDocuments,
        long documentsWithOtherPaths,
        long unreadableDocuments,
        double requestUnits,
        bool encryptionTypesChecked)
    {
        TotalDocuments = totalDocuments;
        DocumentsInTargetState = documentsInTargetState;
        DocumentsByDataEncryptionKeyId = documentsByDataEncryptionKeyId;
        UnencryptedDocuments = unencryptedDocuments;
        PlaintextDocuments = plaintextDocuments;
        DocumentsWithOtherPaths = documentsWithOtherPaths;
        UnreadableDocuments = unreadableDocuments;
        RequestUnits = requestUnits;
        EncryptionTypesChecked = encryptionTypesChecked;
    }

    /// <summary>Documents in the container.</summary>
    public long TotalDocuments { get; }

    /// <summary>Documents already in the target state.</summary>
    public long DocumentsInTargetState { get; }

    /// <summary>Documents outside the target state (what a migration still has to rewrite or report).</summary>
    public long DocumentsOutsideTargetState => TotalDocuments - DocumentsInTargetState;

    /// <summary>Encrypted documents per data encryption key id: a key with no documents can be retired.</summary>
    public IReadOnlyDictionary<string, long> DocumentsByDataEncryptionKeyId { get; }

    /// <summary>
    /// Encrypted documents per format version (<c>_ef</c>): 3 (Microsoft-compatible), 101 (the extended format: nested
    /// selectors or bound values), 2 (the legacy whole-document format). The target state's format is 101 when the
    /// target policy has nested selectors or binds, else 3.
    /// </summary>
    public IReadOnlyDictionary<int, long> DocumentsByFormatVersion { get; internal init; } = new Dictionary<int, long>();

    /// <summary>Documents without encryption metadata.</summary>
    public long UnencryptedDocuments { get; }

    /// <summary>Documents holding a non-null plaintext value in a path of the target policy (0 without a policy).</summary>
    public long PlaintextDocuments { get; }

    /// <summary>Encrypted documents whose metadata lists a path outside the target policy, or that use the legacy format (0 without a policy).</summary>
    public long DocumentsWithOtherPaths { get; }

    /// <summary>
    /// Documents holding, in a path of the target policy, a value shaped like an encrypted value that their metadata
    /// does not list (for example after a writer without encryption dropped <c>_ei</c>: missing metadata; a format 101
    /// document then still carries its anchor <c>_ex</c>, and the job reports it as missing its envelope metadata, as
    /// a read does). Outside the target state and not counted in <see cref="PlaintextDocuments"/>: a migration reports
    /// them rather than encrypt them again.
    /// </summary>
    public long DocumentsWithUnlistedCipherText { get; internal init; }

    /// <summary>
    /// Encrypted documents whose query tokens (<c>_q</c>, for the range and prefix queries a policy declares) are not
    /// what the target policy declares: missing (written before the declaration was added, or under a policy without
    /// it), for a path the target does not declare, or, when the scan was given the key, not those of the values (a
    /// value changed under its tokens, tokens under another key or another declaration). Outside the target state: a
    /// migration rewrites them, which writes their tokens anew. Without the key only the members are compared, so
    /// tokens left stale under the right members count as in the target state there. Bound values' tokens are compared
    /// by their members only. A <c>_q</c> shaped as no writer of this library writes is not counted here but in
    /// <see cref="UnreadableDocuments"/>: a migration reports it instead of rewriting over it.
    /// </summary>
    public long DocumentsWithStaleQueryTokens { get; internal init; }

    /// <summary>Documents whose encryption metadata cannot be read.</summary>
    public long UnreadableDocuments { get; }

    /// <summary>Request units the scan was charged.</summary>
    public double RequestUnits { get; }

    /// <summary>
    /// Whether each path's encryption type (deterministic or randomized) was checked against the target policy. Only
    /// a scan given the key can check it (the cell does not say); without it, a document that differs from the
    /// target only in a path's encryption type counts in <see cref="DocumentsInTargetState"/>. Always
    /// <see langword="true"/> when the target is "no encryption" (there is no type to check).
    /// </summary>
    public bool EncryptionTypesChecked { get; }
}
