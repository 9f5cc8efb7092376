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

    // How long a lease nobody owns, with a backlog, holds the job: the processor takes such a lease at its next
    // balancing (every 13 s by default), so one still unowned after two of them is not being taken (its lease
    // traffic failing, say), and its documents are left to the sweep.
    private static readonly TimeSpan s_unownedLeaseGrace = TimeSpan.FromSeconds(30);

    // Reports progress until done (or cancelled). Done means a verification pass found every document in the target
    // state (reported failures aside); when to look is the CompletionRule's, from the lag over every lease and from
    // every instance's activity (JobActivity). Documents a verification finds outside the target state and not
    // reported are migrated by it directly (the sweep), by one instance of the job only: those the feed will not show
    // again, such as a rerun's left-overs under the same job name. Progress goes on being reported while a
    // verification or a sweep runs.
    private async Task<(bool Completed, EncryptionMigrationStatus? Verification)> WatchAsync(IProgress<EncryptionMigrationProgress>? progress, CancellationToken cancellationToken)
    {
        ChangeFeedEstimator estimator = _container.GetChangeFeedEstimator(_options.ProcessorName, _leaseContainer);
        var rule = new CompletionRule(_options.RunUntilCancelled);
        var board = new JobActivityBoard(_leaseContainer, _options.ProcessorName, _options.InstanceName, _options.ProgressInterval, _budget);
        var activity = new JobActivity(_options.InstanceName);
        EncryptionMigrationStatus? verification = null;
        try
        {
            while (true)
            {
                await Task.Delay(_options.ProgressInterval, _time, cancellationToken).ConfigureAwait(false);
                (long? lag, Dictionary<string, int>? owners) = await EstimateLagAsync(estimator, cancellationToken).ConfigureAwait(false);
                _lastLag = lag ?? _lastLag;
                _otherOwners = owners ?? _otherOwners;
                EncryptionMigrationProgress snapshot = Report(progress);
                bool? jobIdle = await LookAsync(board, activity, snapshot, cancellationToken).ConfigureAwait(false);
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
                            : StatusScan.RunAsync(_container, _target, _crypto.Processor.MaxDepth, _budget, IsReportedFailure, _partitionKeyPaths, outstanding, cancellationToken, _time),
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
        finally
        {
            await RemoveQuietlyAsync(board).ConfigureAwait(false);
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
        long work = snapshot.DocumentsRewritten + snapshot.DocumentsFailed + snapshot.Conflicts;
        try
        {
            if (_otherOwners.Count == 0)
            {
                // Holding every lease: a heartbeat now and then, so that an instance starting beside this one sees
                // the leases' owner alive and waits for it instead of sweeping what it is migrating.
                if (_time.GetUtcNow() - _lastHeartbeat >= board.HeartbeatInterval)
                {
                    _lastHeartbeat = _time.GetUtcNow();
                    await board.PublishAsync(work, cancellationToken).ConfigureAwait(false);
                }

                return activity.Idle([activity.Alone(work)]) && !_unownedBacklog;
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

    // The run ended: its record goes (the others stop waiting for it at once). Best effort within a few seconds, on
    // a token of its own since the run's may be cancelled; a record left behind drops out by itself (JobActivity).
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

    private bool IsReportedFailure(StoredDocument document) => _counters.HasFailed(document.Id, document.PartitionKey.ToString());

    // The lag over all leases, null while no lease exists yet (the processor has not created them) or when the
    // estimator failed this time in a way the run rides out (EstimatorFailures; the next report asks again); and
    // the other instances that own leases, with how many (then the others' activity counts, JobActivity).
    private async Task<(long? Lag, Dictionary<string, int>? OtherOwners)> EstimateLagAsync(ChangeFeedEstimator estimator, CancellationToken cancellationToken)
    {
        long lag = 0;
        int leases = 0;
        var owners = new Dictionary<string, int>(StringComparer.Ordinal);
        bool unownedBacklog = false;
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
                    }
                }
            }
        }
        catch (Exception exception) when (_estimatorFailures.Tolerate(exception, cancellationToken))
        {
            return (null, null);
        }

        _estimatorFailures.Succeeded();
        DateTimeOffset now = _time.GetUtcNow();
        _unownedSince = unownedBacklog ? _unownedSince ?? now : null;
        _unownedBacklog = unownedBacklog && now - _unownedSince < s_unownedLeaseGrace;
        return (leases == 0 ? null : lag, owners);
    }
}
