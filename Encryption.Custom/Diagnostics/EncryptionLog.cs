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
}
