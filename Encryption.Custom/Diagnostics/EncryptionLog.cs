using Microsoft.Extensions.Logging;

namespace Encryption.Custom.Diagnostics;

/// <summary>
/// The library's log messages (event ids and wording documented in docs/diagnostics.md). Source-generated, so a
/// disabled level costs one check and no allocation. Arguments are ids, durations and error kinds only: never key
/// bytes, plaintext or ciphertext (exceptions passed along carry the library's secret-free messages).
/// </summary>
internal static partial class EncryptionLog
{
    [LoggerMessage(
        EventId = 1,
        EventName = "DataEncryptionKeyLoaded",
        Level = LogLevel.Information,
        Message = "Data encryption key '{DataEncryptionKeyId}' was read and unwrapped; it is cached for {TimeToLive}.")]
    public static partial void DataEncryptionKeyLoaded(ILogger logger, string dataEncryptionKeyId, TimeSpan timeToLive);

    [LoggerMessage(
        EventId = 2,
        EventName = "DataEncryptionKeyRefreshed",
        Level = LogLevel.Information,
        Message = "Data encryption key '{DataEncryptionKeyId}' was refreshed in the background; it is cached for {TimeToLive}.")]
    public static partial void DataEncryptionKeyRefreshed(ILogger logger, string dataEncryptionKeyId, TimeSpan timeToLive);

    [LoggerMessage(
        EventId = 3,
        EventName = "DataEncryptionKeyLoadFailed",
        Level = LogLevel.Error,
        Message = "Data encryption key '{DataEncryptionKeyId}' could not be loaded ({ErrorType}); the requests waiting for it fail and the next request tries again.")]
    public static partial void DataEncryptionKeyLoadFailed(ILogger logger, string dataEncryptionKeyId, string errorType, Exception exception);

    [LoggerMessage(
        EventId = 4,
        EventName = "DataEncryptionKeyRefreshFailed",
        Level = LogLevel.Warning,
        Message = "The background refresh of data encryption key '{DataEncryptionKeyId}' failed ({ErrorType}); the cached key stays in use until it expires, and the refresh is retried after {RetryInterval}.")]
    public static partial void DataEncryptionKeyRefreshFailed(ILogger logger, string dataEncryptionKeyId, string errorType, TimeSpan retryInterval, Exception exception);

    // The migration job (docs/migration.md): ids 201-205. Documents are named by id and partition key only; reasons
    // are the library's messages or status codes, never a value.
    [LoggerMessage(
        EventId = 201,
        EventName = "MigrationStarted",
        Level = LogLevel.Information,
        Message = "Encryption migration '{ProcessorName}' started as instance '{InstanceName}'.")]
    public static partial void MigrationStarted(ILogger logger, string processorName, string instanceName);

    [LoggerMessage(
        EventId = 202,
        EventName = "MigrationProgress",
        Level = LogLevel.Information,
        Message = "Encryption migration '{ProcessorName}': {DocumentsSeen} seen, {DocumentsRewritten} rewritten, {DocumentsSkipped} skipped, {DocumentsFailed} failed, {Conflicts} conflicts redone, {RequestUnits} RU; lag {EstimatedLag}, about {EstimatedTimeRemaining} left.")]
    public static partial void MigrationProgress(
        ILogger logger,
        string processorName,
        long documentsSeen,
        long documentsRewritten,
        long documentsSkipped,
        long documentsFailed,
        long conflicts,
        double requestUnits,
        long? estimatedLag,
        TimeSpan? estimatedTimeRemaining);

    [LoggerMessage(
        EventId = 203,
        EventName = "MigrationDocumentFailed",
        Level = LogLevel.Warning,
        Message = "Encryption migration left document '{DocumentId}' (partition key {PartitionKey}) as it was ({ErrorType}): {Reason}")]
    public static partial void MigrationDocumentFailed(ILogger logger, string documentId, string partitionKey, string errorType, string reason);

    [LoggerMessage(
        EventId = 204,
        EventName = "MigrationVerificationOutstanding",
        Level = LogLevel.Warning,
        Message = "Encryption migration '{ProcessorName}' is caught up, but the verification scan found {Outstanding} documents outside the target state that this instance did not report; the change feed shows nothing new for them (another instance's failures, or checkpoints of an earlier migration under this processor name).")]
    public static partial void MigrationVerificationOutstanding(ILogger logger, string processorName, long outstanding);

    [LoggerMessage(
        EventId = 206,
        EventName = "MigrationSweep",
        Level = LogLevel.Information,
        Message = "Encryption migration '{ProcessorName}' is caught up over every instance, and its verification found {Outstanding} documents outside the target state that the change feed will not show again (an earlier run's left-overs under this processor name): this instance migrates them directly.")]
    public static partial void MigrationSweep(ILogger logger, string processorName, long outstanding);

    [LoggerMessage(
        EventId = 207,
        EventName = "MigrationWaitingForLeases",
        Level = LogLevel.Information,
        Message = "Encryption migration '{ProcessorName}' waits for {Leases} leases held by {Owners}, which write no activity record (stopped, killed, or an older version): the change feed processor takes the leases over when they expire (60 s after their last renewal by default), and the run goes on from their checkpoints.")]
    public static partial void MigrationWaitingForLeases(ILogger logger, string processorName, int leases, string owners);

    [LoggerMessage(
        EventId = 205,
        EventName = "MigrationStopped",
        Level = LogLevel.Information,
        Message = "Encryption migration '{ProcessorName}' stopped (completed: {Completed}, failures: {Failures}).")]
    public static partial void MigrationStopped(ILogger logger, string processorName, bool completed, int failures);
}
