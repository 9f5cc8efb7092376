using System.Diagnostics;
using System.Globalization;
using System.Net;

namespace Encryption.Custom.Diagnostics;

/// <summary>
/// The telemetry of one container operation: its activity (when sampled) and its measurements. Created only
/// when someone listens (<see cref="Start"/> returns <see langword="null"/> otherwise, and callers use <c>?.</c>),
/// so an unobserved operation allocates and measures nothing.
/// </summary>
/// <remarks>
/// One operation may encrypt or decrypt several bodies (a batch, a feed page); totals accumulate and become
/// activity tags when the operation ends. Not thread-safe: one operation runs one step at a time.
/// </remarks>
internal sealed class OperationTelemetry : IDisposable
{
    private const int MaxKeyIdsTagged = 4;

    private readonly string _operation;
    private readonly long _startTimestamp;
    private readonly KeyValuePair<string, object?> _operationTag;
    private Activity? _activity;
    private List<string>? _keyIds;
    private long _encryptTicks;
    private long _decryptTicks;
    private int _propertiesEncrypted;
    private int _propertiesDecrypted;
    private int _documentsDecrypted;
    private bool _failed;

    private OperationTelemetry(string operation, string containerId, Activity? activity)
    {
        _operation = operation;
        _operationTag = new KeyValuePair<string, object?>(DiagnosticNames.OperationTag, operation);
        _activity = activity;
        _startTimestamp = Stopwatch.GetTimestamp();
        if (activity is not null)
        {
            activity.SetTag(DiagnosticNames.OperationTag, operation);
            activity.SetTag(DiagnosticNames.ContainerTag, containerId);
        }

        if (EncryptionTelemetry.Operations.Enabled)
        {
            EncryptionTelemetry.Operations.Add(1, _operationTag);
        }
    }

    /// <summary>Whether the activity wants details (DEK ids, property counts), which cost extra work to gather.</summary>
    public bool WantsDetails => _activity?.IsAllDataRequested == true;

    /// <summary>Starts the telemetry of an operation, or returns <see langword="null"/> when nobody listens.</summary>
    /// <param name="operation">A constant operation name (never user data).</param>
    /// <param name="containerId">The container id.</param>
    public static OperationTelemetry? Start(string operation, string containerId)
    {
        if (!EncryptionTelemetry.IsOperationObserved)
        {
            return null;
        }

        Activity? activity = EncryptionTelemetry.Source.HasListeners()
            ? EncryptionTelemetry.Source.StartActivity(DiagnosticNames.ActivityPrefix + operation, ActivityKind.Internal)
            : null;
        return new OperationTelemetry(operation, containerId, activity);
    }

    /// <summary>A timestamp to pass to <see cref="RecordEncrypt"/> or <see cref="RecordDecrypt"/>.</summary>
    public static long Timestamp() => Stopwatch.GetTimestamp();

    /// <summary>Records one encrypted body.</summary>
    /// <param name="startTimestamp">From <see cref="Timestamp"/> before the work.</param>
    /// <param name="processor">The processor's name.</param>
    /// <param name="inputBytes">The plaintext document's size.</param>
    /// <param name="dataEncryptionKeyId">The DEK id.</param>
    /// <param name="properties">How many properties were encrypted, or -1 when not counted.</param>
    public void RecordEncrypt(long startTimestamp, string processor, long inputBytes, string? dataEncryptionKeyId, int properties)
    {
        long elapsed = Stopwatch.GetTimestamp() - startTimestamp;
        _encryptTicks += elapsed;
        var processorTag = new KeyValuePair<string, object?>(DiagnosticNames.ProcessorTag, processor);
        if (EncryptionTelemetry.EncryptDuration.Enabled)
        {
            EncryptionTelemetry.EncryptDuration.Record(Seconds(elapsed), processorTag, _operationTag);
        }

        if (EncryptionTelemetry.EncryptedBytes.Enabled)
        {
            EncryptionTelemetry.EncryptedBytes.Add(inputBytes, processorTag, _operationTag);
        }

        if (_activity is not null)
        {
            _activity.SetTag(DiagnosticNames.ProcessorTag, processor);
            AddKeyId(dataEncryptionKeyId);
            if (properties > 0)
            {
                _propertiesEncrypted += properties;
            }
        }
    }

    /// <summary>Records one decrypted body (a document or a feed page).</summary>
    /// <param name="startTimestamp">From <see cref="Timestamp"/> before the work.</param>
    /// <param name="processor">The processor's name.</param>
    /// <param name="inputBytes">The stored document's or page's size.</param>
    /// <param name="documents">Documents that were decrypted.</param>
    /// <param name="failedDocuments">Documents that could not be decrypted.</param>
    public void RecordDecrypt(long startTimestamp, string processor, long inputBytes, int documents, int failedDocuments)
    {
        long elapsed = Stopwatch.GetTimestamp() - startTimestamp;
        _decryptTicks += elapsed;
        var processorTag = new KeyValuePair<string, object?>(DiagnosticNames.ProcessorTag, processor);
        if (EncryptionTelemetry.DecryptDuration.Enabled)
        {
            EncryptionTelemetry.DecryptDuration.Record(Seconds(elapsed), processorTag, _operationTag);
        }

        if (EncryptionTelemetry.DecryptedBytes.Enabled)
        {
            EncryptionTelemetry.DecryptedBytes.Add(inputBytes, processorTag, _operationTag);
        }

        if (failedDocuments > 0 && EncryptionTelemetry.DocumentFailures.Enabled)
        {
            EncryptionTelemetry.DocumentFailures.Add(failedDocuments, _operationTag);
        }

        _documentsDecrypted += documents;
        _activity?.SetTag(DiagnosticNames.ProcessorTag, processor);
    }

    /// <summary>Adds what a decryption context told (only gathered when <see cref="WantsDetails"/>).</summary>
    public void AddDecrypted(string dataEncryptionKeyId, int properties)
    {
        AddKeyId(dataEncryptionKeyId);
        _propertiesDecrypted += properties;
    }

    /// <summary>Records the service's status code of the (last) response.</summary>
    public void SetStatusCode(HttpStatusCode statusCode) =>
        _activity?.SetTag(DiagnosticNames.StatusCodeTag, (int)statusCode);

    /// <summary>Marks the operation as failed with <paramref name="exception"/> (classified, never its message).</summary>
    public void Fail(Exception exception)
    {
        if (_failed)
        {
            return;
        }

        _failed = true;
        string errorType = ErrorTypes.Classify(exception);
        if (EncryptionTelemetry.OperationFailures.Enabled)
        {
            EncryptionTelemetry.OperationFailures.Add(1, _operationTag, new KeyValuePair<string, object?>(DiagnosticNames.ErrorTypeTag, errorType));
        }

        if (_activity is not null)
        {
            _activity.SetTag(DiagnosticNames.ErrorTypeTag, errorType);
            _activity.SetStatus(ActivityStatusCode.Error, errorType);
        }
    }

    /// <summary>Ends the operation: records its duration and closes the activity with the accumulated tags.</summary>
    public void Dispose()
    {
        Activity? activity = _activity;
        _activity = null;
        if (EncryptionTelemetry.OperationDuration.Enabled)
        {
            EncryptionTelemetry.OperationDuration.Record(Seconds(Stopwatch.GetTimestamp() - _startTimestamp), _operationTag);
        }

        if (activity is null)
        {
            return;
        }

        if (_encryptTicks > 0)
        {
            activity.SetTag(DiagnosticNames.EncryptMillisecondsTag, Seconds(_encryptTicks) * 1000);
            activity.SetTag(DiagnosticNames.PropertiesEncryptedTag, _propertiesEncrypted);
        }

        if (_decryptTicks > 0)
        {
            activity.SetTag(DiagnosticNames.DecryptMillisecondsTag, Seconds(_decryptTicks) * 1000);

            // Counted from decryption contexts, which are only built when all data is recorded.
            if (activity.IsAllDataRequested)
            {
                activity.SetTag(DiagnosticNames.DocumentsDecryptedTag, _documentsDecrypted);
                activity.SetTag(DiagnosticNames.PropertiesDecryptedTag, _propertiesDecrypted);
            }
        }

        if (_keyIds is { Count: > 0 })
        {
            activity.SetTag(DiagnosticNames.DataEncryptionKeyIdTag, string.Join(',', _keyIds));
        }

        activity.Dispose();
    }

    private static double Seconds(long ticks) => (double)ticks / Stopwatch.Frequency;

    private void AddKeyId(string? dataEncryptionKeyId)
    {
        if (dataEncryptionKeyId is null || _activity is null)
        {
            return;
        }

        // The id comes from the document: tag at most a few, each shortened.
        string tagged = UntrustedText.Shorten(dataEncryptionKeyId);
        _keyIds ??= new List<string>(1);
        if (_keyIds.Count < MaxKeyIdsTagged && !_keyIds.Contains(tagged))
        {
            _keyIds.Add(tagged);
        }
    }

    /// <inheritdoc/>
    public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"{_operation} ({(_failed ? "failed" : "ok")})");
}
