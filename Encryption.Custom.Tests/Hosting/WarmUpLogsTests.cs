using Encryption.Custom.Hosting;
using Encryption.Custom.Tests.TestSupport;
using Microsoft.Extensions.Logging;

namespace Encryption.Custom.Tests.Hosting;

/// <summary>
/// The filter that keeps a warm-up failure to one log entry: the provider's DataEncryptionKeyLoadFailed is left out
/// only for a DEK being warmed and only while it is; everything else passes (the endpoint tests check the whole start,
/// HostingTests).
/// </summary>
public sealed class WarmUpLogsTests
{
    private static readonly EventId s_loadFailed = new(3, "DataEncryptionKeyLoadFailed");

    [Fact]
    public void LoadFailed_OfADekBeingWarmed_IsLeftOut_OnlyWhileItIsWarmed()
    {
        var sink = new CapturingLogger();
        var logs = new WarmUpLogs();
        ILogger logger = logs.Wrap(sink).CreateLogger("Encryption.Custom.CosmosDataEncryptionKeyProvider");

        using (logs.Warming("dek-a"))
        {
            Log(logger, s_loadFailed, "dek-a");
            Log(logger, s_loadFailed, "dek-b");
            Log(logger, new EventId(4, "DataEncryptionKeyRefreshFailed"), "dek-a");
        }

        Log(logger, s_loadFailed, "dek-a");

        Assert.Equal(
            ["DataEncryptionKeyLoadFailed dek-b", "DataEncryptionKeyRefreshFailed dek-a", "DataEncryptionKeyLoadFailed dek-a"],
            sink.Entries.Select(e => e.EventName + " " + e.Message));
    }

    [Fact]
    public void Warming_TheSameDekTwice_LeavesItOutUntilBothEnd()
    {
        var sink = new CapturingLogger();
        var logs = new WarmUpLogs();
        ILogger logger = logs.Wrap(logs.Wrap(sink)).CreateLogger("c");

        IDisposable first = logs.Warming("dek-a");
        using (logs.Warming("dek-a"))
        {
            first.Dispose();
            first.Dispose();
            Log(logger, s_loadFailed, "dek-a");
        }

        Log(logger, s_loadFailed, "dek-a");

        Assert.Equal(["dek-a"], sink.Entries.Select(e => e.Message));
    }

    // As the library's generated LoggerMessage writes it: the fields as key-value pairs, the message formatted.
    private static void Log(ILogger logger, EventId eventId, string id) =>
        logger.Log(LogLevel.Error, eventId, new List<KeyValuePair<string, object?>> { new("DataEncryptionKeyId", id) }, new InvalidOperationException("x"), (_, _) => id);
}
