using Microsoft.Extensions.Logging;

namespace Encryption.Custom.Hosting;

/// <summary>The hosting package's log messages (docs/diagnostics.md). Ids, counts, durations and error kinds only.</summary>
internal static partial class HostingLog
{
    [LoggerMessage(
        EventId = 101,
        EventName = "KeyContainerInitialized",
        Level = LogLevel.Information,
        Message = "Cosmos encryption uses the data encryption key container '{KeyContainerId}' of database '{DatabaseId}'.")]
    public static partial void KeyContainerInitialized(ILogger logger, string databaseId, string keyContainerId);

    [LoggerMessage(
        EventId = 102,
        EventName = "WarmUpFinished",
        Level = LogLevel.Information,
        Message = "Cosmos encryption loaded {Loaded} of {Total} data encryption keys at start in {Elapsed}.")]
    public static partial void WarmUpFinished(ILogger logger, int loaded, int total, TimeSpan elapsed);

    [LoggerMessage(
        EventId = 103,
        EventName = "WarmUpFailed",
        Level = LogLevel.Error,
        Message = "Cosmos encryption could not load data encryption key '{DataEncryptionKeyId}' at start ({ErrorType}).")]
    public static partial void WarmUpFailed(ILogger logger, string dataEncryptionKeyId, string errorType, Exception exception);

    [LoggerMessage(
        EventId = 104,
        EventName = "DataEncryptionKeyCreated",
        Level = LogLevel.Information,
        Message = "Cosmos encryption created the data encryption key '{DataEncryptionKeyId}', wrapped by the key-encryption key '{KeyEncryptionKey}', at start.")]
    public static partial void DataEncryptionKeyCreated(ILogger logger, string dataEncryptionKeyId, string keyEncryptionKey);

    [LoggerMessage(
        EventId = 105,
        EventName = "DataEncryptionKeyExists",
        Level = LogLevel.Debug,
        Message = "Cosmos encryption found the data encryption key '{DataEncryptionKeyId}' at start; it was left as it is.")]
    public static partial void DataEncryptionKeyExists(ILogger logger, string dataEncryptionKeyId);
}
