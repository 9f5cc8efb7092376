using System.Globalization;
using Encryption.Custom.Keys;
using Encryption.Custom.Migration;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>
/// An instance whose own leases are drained while other instances still have documents behind theirs helps them, in
/// place: the change feed processor balances lease counts, not the work left behind them, so at the end one instance
/// still rewrites alone what several could (issue 36: of four, the last lease ended 20 s after the first). It reads, range
/// by range, the documents not written since the job's survey began, newest first, and migrates them like documents
/// from the feed (judged, replaced on the ETag read, a 412 redone from the latest version), so a document is still
/// rewritten once: its owner meets the rewritten version later in its feed and skips it, or, with a page already in
/// hand, loses the replace (412), reads the latest version and skips it. The owner reads its feed oldest first and the
/// helper newest first, so they meet only where both end.
/// </summary>
public sealed partial class EncryptionMigrationJob
{
    private Task? _helping;
    private bool _helpExhausted;
    private long _helpedDocuments;

    // The service's time (seconds) at which the survey's round was opened: every write of this job is later. Null when
    // unknown (no shared survey): then this instance does not help.
    private long? _surveyBegan;

    /// <summary>Documents this instance rewrote for other instances' leases in its last run (for the endpoint tests).</summary>
    internal long HelpedDocuments => Interlocked.Read(ref _helpedDocuments);

    // Starts a pass of help when this instance has nothing in flight and is not busy, the estimator sees documents behind
    // leases other instances hold and none behind a lease nobody holds yet (the processor will take that one). One pass
    // at a time; a pass that found nothing to do ends the helping for the run (what is left behind the others' leases
    // is then their own rewrites coming back, which only the feed can skip).
    private void MaybeHelp(long othersLag, bool busy, CancellationToken cancellationToken)
    {
        if (_copy is not null || _helpExhausted || _surveyBegan is null || _helping is { IsCompleted: false }
            || busy || othersLag <= 0 || _unownedBacklog || Interlocked.Read(ref _inFlight) > 0)
        {
            return;
        }

        _helping = HelpAsync(_surveyBegan.Value, cancellationToken);
    }

    private async Task HelpAsync(long before, CancellationToken cancellationToken)
    {
        Interlocked.Increment(ref _inFlight);
        long found = 0;
        try
        {
            IReadOnlyList<FeedRange> ranges = await FeedRangesAsync(cancellationToken).ConfigureAwait(false);
            int start = (int)(RangeClaims.StableHash(_options.InstanceName) % (uint)Math.Max(1, ranges.Count));
            for (int step = 0; step < ranges.Count; step++)
            {
                found += await HelpRangeAsync(ranges[(start + step) % ranges.Count], before, cancellationToken).ConfigureAwait(false);
            }
        }
        catch (Exception exception) when (exception is CosmosException || TransientFailures.IsTransient(exception, cancellationToken))
        {
            found = 1; // not exhausted: a later report may try again
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
        }
        finally
        {
            _helpExhausted |= found == 0;
            if (Interlocked.Decrement(ref _inFlight) == 0)
            {
                Volatile.Read(ref _drained)?.TrySetResult();
            }
        }
    }

    // One range, newest first, until a page holds nothing to rewrite: the documents this instance found to migrate.
    private async Task<long> HelpRangeAsync(FeedRange range, long before, CancellationToken cancellationToken)
    {
        string query = string.Create(CultureInfo.InvariantCulture, $"SELECT * FROM c WHERE c._ts < {before} ORDER BY c._ts DESC");
        long found = 0;
        using var iterator = new ResumableQueryIterator(continuation => _container.GetItemQueryStreamIterator(
            range, new QueryDefinition(query), continuation, new QueryRequestOptions { MaxItemCount = _options.MaxItemsPerBatch }));
        while (iterator.HasMoreResults)
        {
            using ResponseMessage response = await iterator.ReadNextSettledAsync(_budget, charged: null, _time, cancellationToken).ConfigureAwait(false);
            response.EnsureSuccessStatusCode();
            using var copy = new MemoryStream();
            await response.Content.CopyToAsync(copy, cancellationToken).ConfigureAwait(false);
            List<StoredDocument> work;
            using (DataEncryptionKeyLease checkKey = await _target.LeaseCheckKeyAsync(cancellationToken).ConfigureAwait(false))
            {
                work = _migrator!.Triage(copy.GetBuffer().AsSpan(0, (int)copy.Length), checkKey);
            }

            if (work.Count == 0)
            {
                break; // caught up with the range's owner (or nothing was ever to do here)
            }

            found += work.Count;
            Interlocked.Add(ref _helpedDocuments, work.Count);
            await Task.WhenAll(work.Select(document => MigrateLimitedAsync(document, cancellationToken))).ConfigureAwait(false);
        }

        return found;
    }
}
