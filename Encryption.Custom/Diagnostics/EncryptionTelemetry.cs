using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Encryption.Custom.Diagnostics;

/// <summary>
/// The library's <see cref="ActivitySource"/> and <see cref="Meter"/> (both <see cref="DiagnosticNames.SourceName"/>)
/// and their instruments. Every recording checks <see cref="Instrument.Enabled"/> first, so nothing is measured
/// or allocated while nobody listens.
/// </summary>
internal static class EncryptionTelemetry
{
    private static readonly string? s_version = typeof(EncryptionTelemetry).Assembly.GetName().Version?.ToString();

    public static readonly ActivitySource Source = new(DiagnosticNames.SourceName, s_version);

    public static readonly Meter Meter = new(DiagnosticNames.SourceName, s_version);

    public static readonly Counter<long> Operations = Meter.CreateCounter<long>(DiagnosticNames.Operations, "{operation}", "Container operations started.");

    public static readonly Counter<long> OperationFailures = Meter.CreateCounter<long>(DiagnosticNames.OperationFailures, "{operation}", "Container operations that threw.");

    public static readonly Histogram<double> OperationDuration = Meter.CreateHistogram<double>(DiagnosticNames.OperationDuration, "s", "Duration of container operations, service round trips included.");

    public static readonly Histogram<double> EncryptDuration = Meter.CreateHistogram<double>(DiagnosticNames.EncryptDuration, "s", "Time to encrypt one request body.");

    public static readonly Histogram<double> DecryptDuration = Meter.CreateHistogram<double>(DiagnosticNames.DecryptDuration, "s", "Time to decrypt one response body or feed page.");

    public static readonly Counter<long> EncryptedBytes = Meter.CreateCounter<long>(DiagnosticNames.EncryptedBytes, "By", "Bytes of JSON given to encryption.");

    public static readonly Counter<long> DecryptedBytes = Meter.CreateCounter<long>(DiagnosticNames.DecryptedBytes, "By", "Bytes of JSON given to decryption.");

    public static readonly Counter<long> DocumentFailures = Meter.CreateCounter<long>(DiagnosticNames.DocumentFailures, "{document}", "Feed documents that could not be decrypted.");

    public static readonly Counter<long> KeyCacheHits = Meter.CreateCounter<long>(DiagnosticNames.KeyCacheHits, "{lookup}", "Data encryption key lookups answered from the cache.");

    public static readonly Counter<long> KeyCacheMisses = Meter.CreateCounter<long>(DiagnosticNames.KeyCacheMisses, "{lookup}", "Data encryption key lookups that loaded the key.");

    public static readonly Counter<long> KeyUnwraps = Meter.CreateCounter<long>(DiagnosticNames.KeyUnwraps, "{call}", "Unwrap calls to key-encryption-key providers.");

    public static readonly Counter<long> PolicyReads = Meter.CreateCounter<long>(DiagnosticNames.PolicyReads, "{document}", "Encrypted documents read under an encryption policy, per data encryption key.");

    public static readonly Counter<long> PlaintextDocuments = Meter.CreateCounter<long>(DiagnosticNames.PlaintextDocuments, "{document}", "Documents read under an encryption policy that held plaintext in a policy path.");

    public static readonly Counter<long> AbsentPaths = Meter.CreateCounter<long>(DiagnosticNames.AbsentPaths, "{path}", "Paths to encrypt that a written document did not hold.");

    public static readonly Counter<long> MigrationDocuments = Meter.CreateCounter<long>(DiagnosticNames.MigrationDocuments, "{document}", "Documents handled by migration jobs, by outcome.");

    public static readonly Counter<double> MigrationRequestUnits = Meter.CreateCounter<double>(DiagnosticNames.MigrationRequestUnits, "{request_unit}", "Request units charged to migration jobs.");

    private static readonly KeyValuePair<string, object?> s_success = new(DiagnosticNames.OutcomeTag, "success");
    private static readonly KeyValuePair<string, object?> s_failure = new(DiagnosticNames.OutcomeTag, "failure");

    /// <summary>Whether any activity or operation-level instrument is listened to.</summary>
    public static bool IsOperationObserved =>
        Source.HasListeners() || Operations.Enabled || OperationFailures.Enabled || OperationDuration.Enabled
        || EncryptDuration.Enabled || DecryptDuration.Enabled || EncryptedBytes.Enabled || DecryptedBytes.Enabled
        || DocumentFailures.Enabled;

    public static void RecordKeyCacheHit()
    {
        if (KeyCacheHits.Enabled)
        {
            KeyCacheHits.Add(1);
        }
    }

    public static void RecordKeyCacheMiss()
    {
        if (KeyCacheMisses.Enabled)
        {
            KeyCacheMisses.Add(1);
        }
    }

    public static void RecordKeyUnwrap(bool succeeded)
    {
        if (KeyUnwraps.Enabled)
        {
            KeyUnwraps.Add(1, succeeded ? s_success : s_failure);
        }
    }

    public static void RecordPolicyRead(string dataEncryptionKeyId)
    {
        if (PolicyReads.Enabled)
        {
            PolicyReads.Add(1, new KeyValuePair<string, object?>(DiagnosticNames.DataEncryptionKeyIdTag, dataEncryptionKeyId));
        }
    }

    public static void RecordPlaintextDocument()
    {
        if (PlaintextDocuments.Enabled)
        {
            PlaintextDocuments.Add(1);
        }
    }

    public static void RecordAbsentPaths(int count)
    {
        if (count > 0 && AbsentPaths.Enabled)
        {
            AbsentPaths.Add(count);
        }
    }
}
