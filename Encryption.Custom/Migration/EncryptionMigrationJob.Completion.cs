using Encryption.Custom.Diagnostics;
using Encryption.Custom.Migration;
using Microsoft.Azure.Cosmos;
using Microsoft.Extensions.Logging;

namespace Encryption.Custom;

/// <summary>When a run is done: the progress loop, the verification, the sweep of what the feed will not show again.</summary>
public sealed partial class EncryptionMigrationJob
{
    private readonly EstimatorFailures _estimatorFailures = new();
    private Dictionary<string, int> _otherOwners = [];
    private DateTimeOffset _lastHeartbeat = DateTimeOffset.MinValue;
    private string? _silentOwnersLogged;
    private bool _unownedBacklog;
    private DateTimeOffset? _unownedSince;
    private long _othersLag;

    // How long a lease nobody owns, with a backlog, holds the job: the processor takes such a lease at its next
    // balancing (every 13 s by default), so one still unowned after two of them is not being taken (its lease
    // traffic failing, say), and its documents are left to the sweep.
    private static readonly TimeSpan s_unownedLeaseGrace = TimeSpan.FromSeconds(30);

    // How often a busy instance (its counts moved since the previous report, pages in flight) still asks the
    // estimator, at progress intervals shorter than this: the estimator reads every lease and the head of each lease's
    // feed (on the bundled endpoint 9 requests for 8 ranges), which at a 1 s interval cost each instance about as
    // much as its rewrites' feed pages, and every instance pays it (issue 36: 0.09 RU per document of 1.10 with one
    // instance, more with each added one). A busy instance needs the lag for its progress report only: it is not
    // done, whatever the lag says (CompletionRule), so a lag up to this old is enough until it goes quiet.
    private static readonly TimeSpan s_busyEstimateInterval = TimeSpan.FromSeconds(5);
    private DateTimeOffset _lastEstimate = DateTimeOffset.MinValue;
    private long _workAtLastLook = -1;

    // Reports progress until done (or cancelled). Done means a verification pass found every document in the target
    // state (reported failures aside); when to look is the CompletionRule's, from the lag over every lease and from
    // every instance's activity (JobActivity). Documents a verification finds outside the target state and not
    // reported are migrated by it directly (the sweep), by one instance of the job only: those the feed will not show
    // again, such as a rerun's left-overs under the same job name. Progress goes on being reported while a
    // verification or a sweep runs.
    private async Task<(bool Completed, EncryptionMigrationStatus? Verification)> WatchAsync(IProgress<EncryptionMigrationProgress>? progress, JobActivityBoard board, CancellationToken cancellationToken)
    {
        ChangeFeedEstimator estimator = _container.GetChangeFeedEstimator(_options.ProcessorName, _leaseContainer);
        var rule = new CompletionRule(_options.RunUntilCancelled);
        var activity = new JobActivity(_options.InstanceName);
        EncryptionMigrationStatus? verification = null;
        try
        {
            while (true)
            {
                await Task.Delay(_options.ProgressInterval, _time, cancellationToken).ConfigureAwait(false);
                bool busy = Busy(Work(Snapshot()));
                (long? lag, Dictionary<string, int>? owners) = busy && _time.GetUtcNow() - _lastEstimate < s_busyEstimateInterval
                    ? (null, null) // unknown this time: the rule does not verify, the report shows the last lag
                    : await EstimateLagAsync(estimator, cancellationToken).ConfigureAwait(false);
                _lastLag = lag ?? _lastLag;
                _otherOwners = owners ?? _otherOwners;
                EncryptionMigrationProgress snapshot = Report(progress);
                bool? jobIdle = await LookAsync(board, activity, snapshot, cancellationToken).ConfigureAwait(false);
                if (lag is not null)
                {
                    MaybeHelp(_othersLag, busy, cancellationToken);
                }

                if (!rule.ShouldVerify(lag, jobIdle, Interlocked.Read(ref _inFlight)))
                {
                    continue;
                }

                var outstanding = new List<StoredDocument>();
                long unexplained;
                try
                {
                    (verification, unexplained) = await ReportingWhileAsync(
                        _copy is { } copy
                            ? VerifyCopyAsync(copy, outstanding, cancellationToken)
                            : VerifySharedAsync(cancellationToken),
                        progress,
                        board,
                        activity,
                        cancellationToken).ConfigureAwait(false);
                }
                catch (Exception exception) when (TransientFailures.IsTransient(exception, cancellationToken))
                {
                    continue;
                }

                CompletionStep step = rule.Judge(unexplained, snapshot, activity.Sweeps);
                if (step == CompletionStep.Done)
                {
                    return (true, verification);
                }

                // The same documents outstanding twice with nothing done in between (not even a failure reported):
                // documents that cannot be read as documents at all. The status query tells which.
                if (step == CompletionStep.Stuck)
                {
                    if (_logger is { } logger)
                    {
                        EncryptionLog.MigrationVerificationOutstanding(logger, _options.ProcessorName, unexplained);
                    }

                    return (false, verification);
                }

                if (step == CompletionStep.Sweep)
                {
                    // A shared round names its documents by hash only: the sweeper reads them from their ranges.
                    if (_copy is null)
                    {
                        await ReportingWhileAsync(CollectOutstandingAsync(outstanding, cancellationToken), progress, board, activity, cancellationToken).ConfigureAwait(false);
                    }

                    if (_logger is { } sweepLogger)
                    {
                        EncryptionLog.MigrationSweep(sweepLogger, _options.ProcessorName, outstanding.Count);
                    }

                    await ReportingWhileAsync(SweepAsync(outstanding, cancellationToken), progress, board, activity, cancellationToken).ConfigureAwait(false);
                }
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            return (false, verification);
        }
    }

    private EncryptionMigrationProgress Report(IProgress<EncryptionMigrationProgress>? progress)
    {
        EncryptionMigrationProgress snapshot = Snapshot();
        progress?.Report(snapshot);
        LogProgress(snapshot);
        return snapshot;
    }

    // Whether the job did nothing since the last look, null when that cannot be told this time (a transient failure;
    // the next report looks again); never while a lease nobody owns yet has a backlog, for up to s_unownedLeaseGrace (the
    // processor takes it at its next balancing, and sweeping it instead made a slow start migrate everything by point
    // reads). While another instance holds a lease, this one writes its activity and reads
    // every instance's; while it holds them all (or the others hold none), its own counts are the job's, and the
    // board costs nothing: a lone instance under a tight budget must not spend it on records nobody reads.
    private async Task<bool?> LookAsync(JobActivityBoard board, JobActivity activity, EncryptionMigrationProgress snapshot, CancellationToken cancellationToken)
    {
        long work = Work(snapshot);
        bool busy = Busy(work);
        _workAtLastLook = work;
        try
        {
            if (_otherOwners.Count == 0 || busy)
            {
                // Holding every lease, or busy: a heartbeat now and then, so that the other instances see this one
                // alive and wait for it instead of sweeping what it is migrating. A busy instance is not idle, and
                // while it writes no new report the others cannot find the job idle either (JobActivity): writing
                // and reading the records at every report as well cost about 12 RU a report for nothing.
                if (_time.GetUtcNow() - _lastHeartbeat >= board.HeartbeatInterval)
                {
                    _lastHeartbeat = _time.GetUtcNow();
                    await board.PublishAsync(work, cancellationToken).ConfigureAwait(false);
                }

                return _otherOwners.Count == 0 ? activity.Idle([activity.Alone(work)]) && !_unownedBacklog : false;
            }

            _lastHeartbeat = _time.GetUtcNow();
            bool idle = activity.Idle(await board.PublishAndReadAsync(work, cancellationToken).ConfigureAwait(false), _otherOwners.Keys);
            LogSilentOwners(activity.SilentOwners);
            return idle && !_unownedBacklog;
        }
        catch (Exception exception) when (TransientFailures.IsTransient(exception, cancellationToken))
        {
            activity.Unknown();
            return null;
        }
    }

    private static long Work(EncryptionMigrationProgress snapshot) => snapshot.DocumentsRewritten + snapshot.DocumentsFailed + snapshot.Conflicts;

    // Busy: this instance's counts moved since the previous report and it has pages (or a sweep) in flight. Such an
    // instance is not done and the job is not idle; what it would learn from the estimator and the other instances'
    // records changes nothing until it goes quiet.
    private bool Busy(long work) => work != _workAtLastLook && Interlocked.Read(ref _inFlight) > 0;

    // Says once (per change) why the run waits: leases held by instances that write no activity record. The change
    // feed processor takes them over when they expire; until then their documents are neither migrated by their
    // owner nor swept here (the owner may be alive).
    private void LogSilentOwners(IReadOnlyList<string> silent)
    {
        string key = string.Join('\n', silent);
        if (key == _silentOwnersLogged)
        {
            return;
        }

        _silentOwnersLogged = key;
        if (silent.Count > 0 && _logger is { } logger && logger.IsEnabled(LogLevel.Information))
        {
            int leases = silent.Sum(owner => _otherOwners.GetValueOrDefault(owner));
            string owners = string.Join(", ", silent);
            EncryptionLog.MigrationWaitingForLeases(logger, _options.ProcessorName, leases, owners);
        }
    }

    // Awaits a verification or a sweep, reporting progress (and this instance's activity, so that the others see the
    // sweep as work) every interval meanwhile: a scan of a large container takes minutes.
    private async Task<T> ReportingWhileAsync<T>(Task<T> work, IProgress<EncryptionMigrationProgress>? progress, JobActivityBoard board, JobActivity activity, CancellationToken cancellationToken)
    {
        while (true)
        {
            Task delay = Task.Delay(_options.ProgressInterval, _time, cancellationToken);
            if (await Task.WhenAny(work, delay).ConfigureAwait(false) == work || delay.IsCanceled)
            {
                return await work.ConfigureAwait(false);
            }

            await LookAsync(board, activity, Report(progress), cancellationToken).ConfigureAwait(false);
        }
    }

    private async Task ReportingWhileAsync(Task work, IProgress<EncryptionMigrationProgress>? progress, JobActivityBoard board, JobActivity activity, CancellationToken cancellationToken) =>
        await ReportingWhileAsync(WithResult(work), progress, board, activity, cancellationToken).ConfigureAwait(false);

    private static async Task<bool> WithResult(Task work)
    {
        await work.ConfigureAwait(false);
        return true;
    }

    // The run ended and its processor released its leases: its record goes (the others stop waiting for it at once).
    // Not before the release: the others would see leases owned by an instance without a record, and wait for it as
    // for a killed one (MigrationWaitingForLeases). Best effort within a few seconds, on a token of its own since the
    // run's may be cancelled; a record left behind drops out by itself (JobActivity).
    private static async Task RemoveQuietlyAsync(JobActivityBoard board)
    {
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        try
        {
            await board.RemoveAsync(bound.Token).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is CosmosException or OperationCanceledException || TransientFailures.IsTransient(exception, CancellationToken.None))
        {
            // Left behind: harmless, see above.
        }
    }

    // Each document a verification found outside the target state is read again (it may have changed since) and
    // migrated like one from the feed, with the same parallelism, budget and retries.
    private async Task SweepAsync(List<StoredDocument> outstanding, CancellationToken cancellationToken)
    {
        Interlocked.Increment(ref _inFlight);
        try
        {
            await Task.WhenAll(outstanding.Select(document => RevisitLimitedAsync(document, cancellationToken))).ConfigureAwait(false);
        }
        finally
        {
            if (Interlocked.Decrement(ref _inFlight) == 0)
            {
                Volatile.Read(ref _drained)?.TrySetResult();
            }
        }
    }

    private async Task RevisitLimitedAsync(StoredDocument document, CancellationToken cancellationToken)
    {
        await _parallelism.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            if (_copier is not null)
            {
                await _copier.CopyLatestAsync(document, cancellationToken).ConfigureAwait(false);
            }
            else if (await _migrator!.RevisitAsync(document, cancellationToken).ConfigureAwait(false) is { } latest)
            {
                await _migrator.MigrateAsync(latest, cancellationToken).ConfigureAwait(false);
            }
        }
        finally
        {
            _parallelism.Release();
        }
    }

    // Without the partition key paths (not read yet) no document can be looked up: none counts as unexplained.
    private UnexplainedSearch? Unexplained(List<StoredDocument> outstanding) =>
        _partitionKeyPaths is { } paths ? new UnexplainedSearch(IsReportedFailure, paths, outstanding) : null;

    private bool IsReportedFailure(StoredDocument document) => _counters.HasFailed(document.Id, document.PartitionKey.ToString());

    // The lag over all leases, null while no lease exists yet (the processor has not created them) or when the
    // estimator failed this time in a way the run rides out (EstimatorFailures; the next report asks again); and
    // the other instances that own leases, with how many (then the others' activity counts, JobActivity).
    private async Task<(long? Lag, Dictionary<string, int>? OtherOwners)> EstimateLagAsync(ChangeFeedEstimator estimator, CancellationToken cancellationToken)
    {
        long lag = 0;
        long othersLag = 0;
        int leases = 0;
        var owners = new Dictionary<string, int>(StringComparer.Ordinal);
        bool unownedBacklog = false;
        var taken = new HashSet<string>(StringComparer.Ordinal);
        long look = _leasePages.BeginLook();
        try
        {
            using FeedIterator<ChangeFeedProcessorState> states = estimator.GetCurrentStateIterator();
            while (states.HasMoreResults)
            {
                FeedResponse<ChangeFeedProcessorState> page = await states.ReadNextAsync(cancellationToken).ConfigureAwait(false);
                _budget.Charge(page.RequestCharge);
                foreach (ChangeFeedProcessorState state in page)
                {
                    leases++;
                    lag += state.EstimatedLag;
                    if (state.InstanceName is not { Length: > 0 } owner)
                    {
                        // A lease nobody owns yet (the processor's start or balancing has not taken it): its backlog
                        // is the feed's to come, not the sweep's.
                        unownedBacklog |= state.EstimatedLag > 0;
                    }
                    else if (!string.Equals(owner, _options.InstanceName, StringComparison.Ordinal))
                    {
                        owners[owner] = owners.GetValueOrDefault(owner) + 1;
                        othersLag += state.EstimatedLag;
                        taken.Add(state.LeaseToken);
                    }
                }
            }
        }
        catch (Exception exception) when (_estimatorFailures.Tolerate(exception, cancellationToken))
        {
            return (null, null);
        }

        _estimatorFailures.Succeeded();
        _lastEstimate = _time.GetUtcNow();

        // A page of a lease another instance now owns cannot be checkpointed here: its rest is the new owner's.
        _leasePages.AbandonTaken(look, taken);
        DateTimeOffset now = _time.GetUtcNow();
        _unownedSince = unownedBacklog ? _unownedSince ?? now : null;
        _unownedBacklog = unownedBacklog && now - _unownedSince < s_unownedLeaseGrace;
        _othersLag = othersLag;
        return (leases == 0 ? null : lag, owners);
    }
}
