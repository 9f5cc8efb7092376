using Encryption.Custom.Diagnostics;
using Encryption.Custom.Migration;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>When a run is done: the progress loop, the verification, the sweep of what the feed will not show again.</summary>
public sealed partial class EncryptionMigrationJob
{
    private readonly EstimatorFailures _estimatorFailures = new();

    // Reports progress until done (or cancelled). Done means a verification pass found every document in the target
    // state (reported failures aside); when to look is the CompletionRule's. Documents a verification finds outside the
    // target state and not reported are migrated by it directly (the sweep): those the feed will not show again, such
    // as a rerun's left-overs under the same job name.
    private async Task<(bool Completed, EncryptionMigrationStatus? Verification)> WatchAsync(IProgress<EncryptionMigrationProgress>? progress, CancellationToken cancellationToken)
    {
        ChangeFeedEstimator estimator = _container.GetChangeFeedEstimator(_options.ProcessorName, _leaseContainer);
        var rule = new CompletionRule(_options.RunUntilCancelled);
        EncryptionMigrationStatus? verification = null;
        try
        {
            while (true)
            {
                await Task.Delay(_options.ProgressInterval, _time, cancellationToken).ConfigureAwait(false);
                long? lag = await EstimateLagAsync(estimator, cancellationToken).ConfigureAwait(false);
                _lastLag = lag ?? _lastLag;
                EncryptionMigrationProgress snapshot = Snapshot();
                progress?.Report(snapshot);
                LogProgress(snapshot);
                if (!rule.ShouldVerify(lag, snapshot, Interlocked.Read(ref _inFlight)))
                {
                    continue;
                }

                var outstanding = new List<StoredDocument>();
                long unexplained;
                try
                {
                    (verification, unexplained) = await StatusScan.RunAsync(
                        _container, _target, _crypto.Processor.MaxDepth, _budget, IsReportedFailure, _partitionKeyPaths, outstanding, cancellationToken, _time).ConfigureAwait(false);
                }
                catch (Exception exception) when (TransientFailures.IsTransient(exception, cancellationToken))
                {
                    continue;
                }

                CompletionStep step = rule.Judge(unexplained, snapshot);
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

                await SweepAsync(outstanding, cancellationToken).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            return (false, verification);
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
            if (await _migrator!.RevisitAsync(document, cancellationToken).ConfigureAwait(false) is { } latest)
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

    // The lag over all leases; null while no lease exists yet (the processor has not created them), or when the
    // estimator failed this time in a way the run rides out (EstimatorFailures; the next report asks again).
    private async Task<long?> EstimateLagAsync(ChangeFeedEstimator estimator, CancellationToken cancellationToken)
    {
        long lag = 0;
        int leases = 0;
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
                }
            }
        }
        catch (Exception exception) when (_estimatorFailures.Tolerate(exception, cancellationToken))
        {
            return null;
        }

        _estimatorFailures.Succeeded();
        return leases == 0 ? null : lag;
    }
}
