namespace Encryption.Custom;

/// <summary>
/// Where a copy into a new container stands, from <c>EncryptionMigrationJob.GetCopyStatusAsync</c> (and a copy job's
/// verification): every source document looked up in the target by its plaintext id and partition key (through the
/// target's encryption container, so an encrypted id or key is found), both decrypted in memory and compared; and the
/// target's own documents counted against the target policy.
/// </summary>
/// <remarks>
/// The source and the target are read one after the other, not at one instant: while an application still writes to
/// the source, a document changed after its comparison is not seen here. With the source's writers stopped, the
/// counts are exact.
/// </remarks>
public sealed class EncryptionCopyStatus
{
    internal EncryptionCopyStatus(
        long sourceDocuments,
        long documentsCopied,
        long documentsMissingFromTarget,
        long documentsDifferentInTarget,
        long unreadableSourceDocuments,
        EncryptionMigrationStatus target,
        double requestUnits)
    {
        SourceDocuments = sourceDocuments;
        DocumentsCopied = documentsCopied;
        DocumentsMissingFromTarget = documentsMissingFromTarget;
        DocumentsDifferentInTarget = documentsDifferentInTarget;
        UnreadableSourceDocuments = unreadableSourceDocuments;
        Target = target;
        RequestUnits = requestUnits;
    }

    /// <summary>Documents in the source container.</summary>
    public long SourceDocuments { get; }

    /// <summary>Source documents whose copy is in the target with the same application data (system properties aside).</summary>
    public long DocumentsCopied { get; }

    /// <summary>Source documents with no document in the target under their id and partition key.</summary>
    public long DocumentsMissingFromTarget { get; }

    /// <summary>Source documents whose copy holds other data (an older version), or cannot be decrypted through the target policy.</summary>
    public long DocumentsDifferentInTarget { get; }

    /// <summary>Source documents that cannot be decrypted through the source policy: the copy reports them, never copies them.</summary>
    public long UnreadableSourceDocuments { get; }

    /// <summary>
    /// Target documents no source document accounts for: <see cref="EncryptionMigrationStatus.TotalDocuments"/> of
    /// <see cref="Target"/> less the source documents found there (never below zero). Documents deleted from the source
    /// after they were copied stay in the target (the change feed the copy follows shows no deletes), as do documents
    /// an application already writes to the target; the copy never deletes (docs/migration.md, "Copying into a new container").
    /// </summary>
    public long DocumentsOnlyInTarget => Math.Max(0, Target.TotalDocuments - DocumentsCopied - DocumentsDifferentInTarget);

    /// <summary>The target container's documents against the target policy, as <c>GetStatusAsync</c> counts them with the key.</summary>
    public EncryptionMigrationStatus Target { get; }

    /// <summary>Request units both scans and the lookups were charged.</summary>
    public double RequestUnits { get; }

    /// <summary>
    /// Whether the copy is complete: every source document is in the target with its data, none is unreadable, and
    /// every target document is in the target state. Documents only in the target do not count against it (see
    /// <see cref="DocumentsOnlyInTarget"/>).
    /// </summary>
    public bool IsComplete => DocumentsMissingFromTarget == 0 && DocumentsDifferentInTarget == 0 && UnreadableSourceDocuments == 0 && Target.DocumentsOutsideTargetState == 0;
}
