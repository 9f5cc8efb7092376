using System.Text.Json;
using Encryption.Custom.Migration;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>
/// The verification that says "done", shared by the job's instances as the survey is (<see cref="SharedRangeScan"/>): a
/// verification round's feed ranges are claimed and scanned one instance each, and every instance that verifies joins
/// a round opened after its run began and after the last round it used, so instances that look for "done" at about the
/// same time read the container once between them. Each instance judges the round's documents outside the target
/// state against its own reported failures (<see cref="VerificationRecord"/>), as its own scan would.
/// </summary>
public sealed partial class EncryptionMigrationJob
{
    private SharedRangeScan? _verificationScan;
    private int _verificationAfter;
    private int _verificationRounds;
    private List<FeedRange> _verificationPending = [];

    /// <summary>Documents this instance read in its verification ranges in its last run (for the endpoint tests: a shared round reads each document once over all instances).</summary>
    internal long VerifiedDocuments => _verificationScan?.DocumentsScanned ?? 0;

    /// <summary>Verification rounds this instance used in its last run.</summary>
    internal int VerificationRounds => Volatile.Read(ref _verificationRounds);

    // How long after a verification round's last write its results are used by an instance that joins it: the instances
    // of a job look for "done" within a few reports of each other. A round in progress is written every few seconds
    // (claims are renewed while scanned), so a long one stays open to the instances joining it.
    private TimeSpan VerificationReuseWindow => TimeSpan.FromTicks(Math.Max(TimeSpan.FromMinutes(1).Ticks, 5 * _options.ProgressInterval.Ticks));

    // At the run's start: the verification round recorded now is one this run's verification never joins.
    private async Task PrepareVerificationAsync(CancellationToken cancellationToken)
    {
        var records = new RangeScanRecords(_leaseContainer, RangeScanRecords.VerificationKind, _options.ProcessorName, ScanFingerprint(), _budget, _time)
        {
            IsResult = VerificationRecord.IsRecord,
            ReuseWindow = VerificationReuseWindow,
        };
        // Several ranges at once, as the survey (SurveyParallelism): a verification page holds its check key only while
        // it is read (StatusScan).
        _verificationScan = new SharedRangeScan(records, new RangeClaims(_options.InstanceName, s_surveyClaimLifetime, _time), VerifyRangeAsync, _time) { Parallelism = 4 };
        _verificationRounds = 0;
        _verificationPending = [];
        (_helpExhausted, _helpedDocuments) = (false, 0);
        _verificationAfter = await TransientFailures.RetryAsync(records.CurrentRoundAsync, _time, cancellationToken).ConfigureAwait(false);
    }

    // One shared verification round: the container's status and how many of its documents outside the target state
    // this instance's failures do not explain; the ranges holding those are kept for a sweep.
    private async Task<(EncryptionMigrationStatus Status, long Unexplained)> VerifySharedAsync(CancellationToken cancellationToken)
    {
        (ScanRound round, IReadOnlyList<JsonElement> results) = await _verificationScan!.RunAsync(
            _options.InstanceName, FeedRangesAsync, _verificationAfter, SharedScanPoll, cancellationToken).ConfigureAwait(false);
        _verificationAfter = round.Number;
        Interlocked.Increment(ref _verificationRounds);
        HashSet<string> failed = [.. _counters.Failures().Select(failure => VerificationRecord.Name(failure.Id, failure.PartitionKey))];
        (EncryptionMigrationStatus status, long[] unexplained) = VerificationRecord.Merge(results, failed.Contains);
        _verificationPending = [.. Enumerable.Range(0, unexplained.Length).Where(index => unexplained[index] > 0).Select(index => FeedRange.FromJsonString(round.Ranges[index]))];
        return (status, unexplained.Sum());
    }

    // One range of a round: its status, and every document outside the target state (each instance judges them).
    private async Task<RangeScanResult> VerifyRangeAsync(FeedRange range, CancellationToken cancellationToken)
    {
        var outside = new List<StoredDocument>();
        (EncryptionMigrationStatus status, long unexplained) = await TransientFailures.RetryAsync(
            token =>
            {
                outside.Clear();
                return StatusScan.RunAsync((_container, range), _target, _crypto.Processor.MaxDepth, _budget, new UnexplainedSearch(_ => false, _partitionKeyPaths!, outside), _time, token);
            },
            _time,
            cancellationToken).ConfigureAwait(false);
        return new RangeScanResult(status.TotalDocuments, writer => VerificationRecord.Write(writer, status, outside, unexplained));
    }

    // Before a sweep: the documents to migrate, read again from the ranges where the round found some this instance
    // cannot explain (the round's records name them by hash only).
    private async Task<long> CollectOutstandingAsync(List<StoredDocument> outstanding, CancellationToken cancellationToken)
    {
        long unexplained = 0;
        foreach (FeedRange range in _verificationPending)
        {
            var found = new List<StoredDocument>();
            (_, long count) = await TransientFailures.RetryAsync(
                token =>
                {
                    found.Clear();
                    return StatusScan.RunAsync((_container, range), _target, _crypto.Processor.MaxDepth, _budget, Unexplained(found), _time, token);
                },
                _time,
                cancellationToken).ConfigureAwait(false);
            outstanding.AddRange(found.Take(StatusScan.MaxOutstanding - outstanding.Count));
            unexplained += count;
        }

        return unexplained;
    }
}
