namespace Encryption.Custom.Tool.Migration;

/// <summary>Progress as one <see cref="MigrationLines.Progress"/> line per report: for logs, pipes and files.</summary>
internal sealed class PlainProgress(TextWriter output, long documents) : IProgress<EncryptionMigrationProgress>
{
    private readonly Lock _lock = new();

    public void Report(EncryptionMigrationProgress value)
    {
        // Reports come from the job's timer thread; a line is written whole.
        lock (_lock)
        {
            output.WriteLine(MigrationLines.Progress("progress", value, documents));
        }
    }
}
