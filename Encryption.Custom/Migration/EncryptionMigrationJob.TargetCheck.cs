using Encryption.Custom.Json.Inspection;
using Encryption.Custom.Migration;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>
/// What each run checks before its first write: the container is surveyed (<see cref="ContainerSurvey"/>) and
/// compared with the target (<see cref="TargetComparison"/>); a target that would decrypt a path, or change how one is
/// encrypted, runs only if the options name that path. This is the one owner of that rule: the tool passes its
/// <c>--decrypt-path</c> and <c>--change-type-path</c> through the options and prints the same comparison.
/// </summary>
public sealed partial class EncryptionMigrationJob
{
    // How long a range claim of the shared survey is respected without renewal: its owner renews it every third of
    // this while it scans, so only a stopped or dead owner lets it lapse; then another instance takes the range over.
    private static readonly TimeSpan s_surveyClaimLifetime = TimeSpan.FromSeconds(30);

    /// <summary>
    /// How many of its claimed ranges an instance surveys at once. Each range's survey leases the keys its documents
    /// name until it ends (a lease is counted, so the same key held by several surveys is one cached key); the pages
    /// still wait for the job's budget. One at a time, a lone first instance surveyed 8 ranges in about 8.7 s at 100 ms
    /// a request, against about 5 s for one cross-partition query, before its processor could start.
    /// </summary>
    internal const int SurveyParallelism = 4;

    private TargetCheck? _targetCheck;
    private long _surveyedDocuments;

    /// <summary>Documents this instance read in its survey before its first write, in its last run (for the endpoint tests: a shared survey reads each document once over all instances).</summary>
    internal long SurveyedDocuments => Interlocked.Read(ref _surveyedDocuments);

    /// <summary>
    /// Surveys the container and compares it with the target, charged to the job's budget (transient failures start
    /// the survey again). The next <see cref="RunAsync"/> uses this check rather than surveying again (the tool prints
    /// it, then runs); a later run surveys afresh, so a check never outlives the run it was made for.
    /// </summary>
    /// <param name="shared">
    /// The job's shared survey, through the lease container (which must exist), as <see cref="RunAsync"/> makes it;
    /// or <see langword="false"/>: the whole container by this instance alone, nothing written (the tool's dry run).
    /// </param>
    /// <param name="cancellationToken">Stops the survey.</param>
    /// <exception cref="CosmosException">The service refused the query.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    internal async Task<TargetCheck> CheckTargetAsync(bool shared, CancellationToken cancellationToken)
    {
        TargetCheck check = shared ? await SharedSurveyAsync(cancellationToken).ConfigureAwait(false) : await SurveyAsync(cancellationToken).ConfigureAwait(false);
        Volatile.Write(ref _targetCheck, check);
        return check;
    }

    // The whole container by this instance alone: the tool's dry run, which writes nothing (not even survey records).
    private async Task<TargetCheck> SurveyAsync(CancellationToken cancellationToken)
    {
        ContainerSurvey survey = await ScanAsync(range: null, cancellationToken).ConfigureAwait(false);
        Interlocked.Exchange(ref _surveyedDocuments, survey.TotalDocuments);
        return Compare(survey);
    }

    // The survey shared by the job's instances through the lease container (SharedRangeScan): each feed range is
    // surveyed by one instance, and an instance that starts after the survey is done reads its result instead of the
    // container.
    private async Task<TargetCheck> SharedSurveyAsync(CancellationToken cancellationToken)
    {
        var records = new RangeScanRecords(_leaseContainer, RangeScanRecords.SurveyKind, _options.ProcessorName, ScanFingerprint(), _budget, _time) { IsResult = ContainerSurvey.IsRecord };
        var shared = new SharedRangeScan(records, new RangeClaims(_options.InstanceName, s_surveyClaimLifetime, _time), SurveyRangeAsync, _time) { Parallelism = SurveyParallelism };
        try
        {
            (ScanRound round, IReadOnlyList<System.Text.Json.JsonElement> results) = await shared.RunAsync(_options.InstanceName, FeedRangesAsync, after: 0, SharedScanPoll, cancellationToken).ConfigureAwait(false);
            _surveyBegan = round.Written; // every write of this job comes later (the help's bound)
            return Compare(ContainerSurvey.Merge(results, _target.Policy));
        }
        finally
        {
            Interlocked.Exchange(ref _surveyedDocuments, shared.DocumentsScanned);
        }
    }

    private async Task<RangeScanResult> SurveyRangeAsync(FeedRange range, CancellationToken cancellationToken)
    {
        ContainerSurvey survey = await ScanAsync(range, cancellationToken).ConfigureAwait(false);
        return new RangeScanResult(survey.TotalDocuments, survey.WriteTo);
    }

    // What a shared scan's results depend on besides the documents: records of another fingerprint are never merged.
    private string ScanFingerprint() =>
        RangeScanRecords.Fingerprint($"{_container.Database.Id}/{_container.Id}", _target.Policy, _target.SourceKeyIds, $"{_options.JsonProcessor}/{_crypto.Processor.MaxDepth}");

    // While every range left is claimed by another instance: look again after a progress interval (within 1-5 s; each
    // look is a query of the round's records, charged to the budget).
    private TimeSpan SharedScanPoll => TimeSpan.FromMilliseconds(Math.Clamp(_options.ProgressInterval.TotalMilliseconds, 1000, 5000));

    private async Task<IReadOnlyList<FeedRange>> FeedRangesAsync(CancellationToken cancellationToken) =>
        await TransientFailures.RetryAsync(token => _container.GetFeedRangesAsync(token), _time, cancellationToken).ConfigureAwait(false);

    private Task<ContainerSurvey> ScanAsync(FeedRange? range, CancellationToken cancellationToken) =>
        TransientFailures.RetryAsync(
            token => ContainerSurvey.RunAsync(new SurveyRequest(_container, DocumentInspector.For(_options.JsonProcessor), _crypto.Processor.MaxDepth, _encryptor, _target.SourceKeyIds, _target.Policy) { Range = range }, _budget, _time, token),
            _time,
            cancellationToken);

    private TargetCheck Compare(ContainerSurvey survey) =>
        new(survey, TargetComparison.Compare(_target.Policy, survey.Paths, _allowedDecryptPaths, _allowedTypeChangePaths));

    // Refuses, before anything is written, a target that takes away what the options did not name.
    private async Task EnsureTargetAllowedAsync(CancellationToken cancellationToken)
    {
        TargetCheck check = Interlocked.Exchange(ref _targetCheck, null) ?? await SharedSurveyAsync(cancellationToken).ConfigureAwait(false);

        // In place, a document keeps its address: a target that would change a stored id or partition key, judged from
        // what the survey found stored there, is refused before the first write (the copy is the way to such a target).
        // (_partitionKeyPaths: read by PrepareAsync, which runs first.)
        if (_copy is null && TargetComparison.DescribeStoredKeyChange(_target.Policy, _partitionKeyPaths!, check.Survey.StoredAt) is { } addressChange)
        {
            throw new EncryptionException(EncryptionErrorKind.InvalidOptions, addressChange);
        }

        if (check.Refused.Count == 0)
        {
            return;
        }

        string what = string.Join("; ", check.Refused.Select(TargetComparison.Describe));
        throw new EncryptionException(
            EncryptionErrorKind.InvalidOptions,
            $"The migration would {what}. Nothing was written. To go ahead, add each such path to "
            + $"{nameof(EncryptionMigrationOptions)}.{nameof(EncryptionMigrationOptions.AllowedDecryptPaths)} (a path the target does not encrypt) "
            + $"or {nameof(EncryptionMigrationOptions)}.{nameof(EncryptionMigrationOptions.AllowedEncryptionTypeChangePaths)} (a changed encryption type), or change the target.",
            path: check.Refused.Count == 1 ? check.Refused[0].Path : null);
    }
}
