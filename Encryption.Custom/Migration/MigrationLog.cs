using Microsoft.Extensions.Logging;

namespace Encryption.Custom.Migration;

/// <summary>The job's log lines: ids, counts and reasons only, never a document value or key material.</summary>
internal static class MigrationLog
{
    private static readonly Action<ILogger, string, string, Exception?> s_started = LoggerMessage.Define<string, string>(
        LogLevel.Information, new EventId(1, "MigrationStarted"), "Encryption migration '{ProcessorName}' started as instance '{InstanceName}'.");

    private static readonly Action<ILogger, long, long, long, long, double, long?, Exception?> s_progress = LoggerMessage.Define<long, long, long, long, double, long?>(
        LogLevel.Information, new EventId(2, "MigrationProgress"), "Encryption migration: {Seen} seen, {Rewritten} rewritten, {Skipped} skipped, {Failed} failed, {RequestUnits} RU, lag {Lag}.");

    private static readonly Action<ILogger, string, string, string, Exception?> s_failure = LoggerMessage.Define<string, string, string>(
        LogLevel.Warning, new EventId(3, "MigrationDocumentFailed"), "Encryption migration left document '{Id}' (partition key {PartitionKey}) as it was: {Reason}");

    private static readonly Action<ILogger, bool, long, Exception?> s_stopped = LoggerMessage.Define<bool, long>(
        LogLevel.Information, new EventId(4, "MigrationStopped"), "Encryption migration stopped (completed: {Completed}, failures: {Failures}).");

    public static void Started(ILogger? logger, string processorName, string instanceName)
    {
        if (logger is not null)
        {
            s_started(logger, processorName, instanceName, null);
        }
    }

    public static void Progress(ILogger? logger, EncryptionMigrationProgress progress)
    {
        if (logger is not null)
        {
            s_progress(logger, progress.DocumentsSeen, progress.DocumentsRewritten, progress.DocumentsSkipped, progress.DocumentsFailed, progress.RequestUnits, progress.EstimatedLag, null);
        }
    }

    public static void Failure(ILogger? logger, EncryptionMigrationFailure failure)
    {
        if (logger is not null)
        {
            s_failure(logger, failure.Id, failure.PartitionKey, failure.Reason, null);
        }
    }

    public static void Stopped(ILogger? logger, bool completed, long failures)
    {
        if (logger is not null)
        {
            s_stopped(logger, completed, failures, null);
        }
    }
}
