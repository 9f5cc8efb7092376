namespace Encryption.Custom;

/// <summary>A snapshot of one <see cref="EncryptionMigrationJob"/> instance's work so far (counts since it started).</summary>
public sealed class EncryptionMigrationProgress
{
    /// <summary>Creates a snapshot.</summary>
    /// <param name="documentsSeen">Documents read from the change feed (each version counts).</param>
    /// <param name="documentsRewritten">Documents written in the target state.</param>
    /// <param name="documentsSkipped">Documents already in the target state, or deleted before they could be rewritten.</param>
    /// <param name="documentsFailed">Documents that could not be migrated (see <see cref="EncryptionMigrationResult.Failures"/>).</param>
    /// <param name="conflicts">Writes refused because the document changed since it was read (412), each redone.</param>
    /// <param name="requestUnits">Request units charged to this instance.</param>
    /// <param name="estimatedLag">The change feed estimator's remaining lag over all leases, or <see langword="null"/> before the first estimate.</param>
    /// <param name="estimatedTimeRemaining">The lag divided by the rate documents are seen, or <see langword="null"/> when unknown.</param>
    /// <param name="elapsed">Time since the instance started.</param>
    public EncryptionMigrationProgress(
        long documentsSeen,
        long documentsRewritten,
        long documentsSkipped,
        long documentsFailed,
        long conflicts,
        double requestUnits,
        long? estimatedLag,
        TimeSpan? estimatedTimeRemaining,
        TimeSpan elapsed)
    {
        DocumentsSeen = documentsSeen;
        DocumentsRewritten = documentsRewritten;
        DocumentsSkipped = documentsSkipped;
        DocumentsFailed = documentsFailed;
        Conflicts = conflicts;
        RequestUnits = requestUnits;
        EstimatedLag = estimatedLag;
        EstimatedTimeRemaining = estimatedTimeRemaining;
        Elapsed = elapsed;
    }

    /// <summary>Documents read from the change feed (each version counts).</summary>
    public long DocumentsSeen { get; }

    /// <summary>Documents written in the target state.</summary>
    public long DocumentsRewritten { get; }

    /// <summary>Documents already in the target state (the job's own writes come back this way), or deleted meanwhile.</summary>
    public long DocumentsSkipped { get; }

    /// <summary>Documents left as they were because they could not be migrated.</summary>
    public long DocumentsFailed { get; }

    /// <summary>Writes refused with 412 because the application wrote meanwhile; each was re-read and redone.</summary>
    public long Conflicts { get; }

    /// <summary>Request units charged to this instance.</summary>
    public double RequestUnits { get; }

    /// <summary>The change feed estimator's remaining lag over all leases (all instances), or <see langword="null"/> before the first estimate.</summary>
    public long? EstimatedLag { get; }

    /// <summary>An estimate of the time left, or <see langword="null"/> when unknown.</summary>
    public TimeSpan? EstimatedTimeRemaining { get; }

    /// <summary>Time since the instance started.</summary>
    public TimeSpan Elapsed { get; }
}
