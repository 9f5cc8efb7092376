namespace Encryption.Custom;

/// <summary>What one <see cref="EncryptionMigrationJob.RunAsync"/> call did.</summary>
public sealed class EncryptionMigrationResult
{
    internal EncryptionMigrationResult(bool completed, EncryptionMigrationProgress progress, IReadOnlyList<EncryptionMigrationFailure> failures, EncryptionMigrationStatus? verification)
    {
        Completed = completed;
        Progress = progress;
        Failures = failures;
        Verification = verification;
    }

    /// <summary>
    /// Whether the container is in the target state: the estimator reported no lag and the verification scan found
    /// no document outside the target state except those in <see cref="Failures"/>. <see langword="false"/> when the
    /// run was cancelled (resume by running again with the same processor name).
    /// </summary>
    public bool Completed { get; }

    /// <summary>The counts at the end of the run.</summary>
    public EncryptionMigrationProgress Progress { get; }

    /// <summary>The documents this instance could not migrate, each once (latest reason), in the order found.</summary>
    public IReadOnlyList<EncryptionMigrationFailure> Failures { get; }

    /// <summary>
    /// A copy job's last verification (every source document compared with its copy), or <see langword="null"/> for an
    /// in-place job or when cancelled first. <see cref="Verification"/> is then its count of the target container.
    /// </summary>
    public EncryptionCopyStatus? CopyVerification { get; internal init; }

    /// <summary>The verification scan made when the job caught up, or <see langword="null"/> when cancelled first.</summary>
    public EncryptionMigrationStatus? Verification { get; }
}
