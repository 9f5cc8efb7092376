using System.Collections.Concurrent;
using Encryption.Custom.Diagnostics;
namespace Encryption.Custom.Migration;

/// <summary>One job instance's counts and failure list, also recorded on the library's meter. Thread-safe.</summary>
internal sealed class MigrationCounters
{
    private static readonly KeyValuePair<string, object?> s_rewritten = new(DiagnosticNames.OutcomeTag, "rewritten");
    private static readonly KeyValuePair<string, object?> s_skipped = new(DiagnosticNames.OutcomeTag, "skipped");
    private static readonly KeyValuePair<string, object?> s_failed = new(DiagnosticNames.OutcomeTag, "failed");
    private static readonly KeyValuePair<string, object?> s_conflict = new(DiagnosticNames.OutcomeTag, "conflict");

    private readonly ConcurrentDictionary<(string Id, string PartitionKey), (long Order, EncryptionMigrationFailure Failure)> _failures = new();
    private readonly TimeProvider _time;
    private readonly long _started;
    private long _seen;
    private long _rewritten;
    private long _skipped;
    private long _conflicts;
    private long _failureOrder;

    /// <param name="time">The clock <see cref="Snapshot"/> measures the elapsed time and the rate by (the job's).</param>
    public MigrationCounters(TimeProvider time)
    {
        _time = time;
        _started = time.GetTimestamp();
    }

    public long Seen => Interlocked.Read(ref _seen);

    public void AddSeen(int count) => Interlocked.Add(ref _seen, count);

    public void Rewritten() => Add(ref _rewritten, s_rewritten);

    public void Skipped() => Add(ref _skipped, s_skipped);

    public void Conflict() => Add(ref _conflicts, s_conflict);

    /// <summary>Records a failure; a document that fails again keeps its place and gets the latest reason.</summary>
    public void Failed(EncryptionMigrationFailure failure)
    {
        long order = Interlocked.Increment(ref _failureOrder);
        _failures.AddOrUpdate((failure.Id, failure.PartitionKey), (order, failure), (_, existing) => (existing.Order, failure));
        if (EncryptionTelemetry.MigrationDocuments.Enabled)
        {
            EncryptionTelemetry.MigrationDocuments.Add(1, s_failed);
        }
    }

    /// <summary>Whether the document is in the failure list.</summary>
    public bool HasFailed(string id, string partitionKey) => _failures.ContainsKey((id, partitionKey));

    public IReadOnlyList<EncryptionMigrationFailure> Failures() =>
        [.. _failures.Values.OrderBy(entry => entry.Order).Select(entry => entry.Failure)];

    public EncryptionMigrationProgress Snapshot(double requestUnits, long? lag)
    {
        TimeSpan elapsed = _time.GetElapsedTime(_started);
        long seen = Seen;
        TimeSpan? remaining = null;
        if (lag is { } value && seen > 0 && elapsed > TimeSpan.Zero)
        {
            remaining = TimeSpan.FromSeconds(value / (seen / elapsed.TotalSeconds));
        }

        return new EncryptionMigrationProgress(
            seen,
            Interlocked.Read(ref _rewritten),
            Interlocked.Read(ref _skipped),
            _failures.Count,
            Interlocked.Read(ref _conflicts),
            requestUnits,
            lag,
            remaining,
            elapsed);
    }

    private static void Add(ref long counter, KeyValuePair<string, object?> tag)
    {
        Interlocked.Increment(ref counter);
        if (EncryptionTelemetry.MigrationDocuments.Enabled)
        {
            EncryptionTelemetry.MigrationDocuments.Add(1, tag);
        }
    }
}
