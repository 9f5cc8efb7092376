using System.Globalization;
using System.Text.Json;
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
/// helper newest first, and the helper stops two of the owner's pages short of it (a count of what is left first), so
/// the two do not reach for the same documents; a helper that meets conflicts anyway (another helper in the same range)
/// leaves that range. Its queries (a count and a page of a few dozen documents) are charged to its budget.
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

    // At the run's end, after the drain: a pass that failed other than as above is the run's failure (fail closed), not
    // an exception nobody observes.
    private async Task ObserveHelpAsync()
    {
        if (_helping is { } helping)
        {
            _helping = null;
            await helping.ConfigureAwait(false);
        }
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
        catch (Exception exception) when (TransientFailures.IsTransient(exception, cancellationToken))
        {
            found = 1; // not exhausted: a later report may try again
        }
        catch (CosmosException)
        {
            // Refused for good (a container whose indexing policy cannot order or filter by _ts, say): the owners do
            // the work, as without help; not asked again in this run.
            found = 0;
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

    // One range, newest first, a small page at a time, while more than two of the owner's pages are left in it: the
    // owner reads its feed oldest first, a page at a time, so the helper stops short of the page in its hands and the
    // next one (a document both rewrite costs the loser a 412 and a read). A page that met conflicts (another helper
    // in the same range) ends the help there. Returns the documents this instance found to migrate.
    private async Task<long> HelpRangeAsync(FeedRange range, long before, CancellationToken cancellationToken)
    {
        int page = Math.Min(_options.MaxItemsPerBatch, 4 * _options.MaxDegreeOfParallelism);
        long margin = (2L * _options.MaxItemsPerBatch) + _options.MaxDegreeOfParallelism;
        long found = 0;
        while (true)
        {
            long left = await CountNotWrittenSinceAsync(range, before, cancellationToken).ConfigureAwait(false);
            long take = Math.Min(page, left - margin);
            if (take <= 0)
            {
                return found;
            }

            List<StoredDocument> work = await NewestAsync(range, before, take, cancellationToken).ConfigureAwait(false);
            if (work.Count == 0)
            {
                return found; // what is left there is in the target state already (or reported): the owner skips it
            }

            found += work.Count;
            Interlocked.Add(ref _helpedDocuments, work.Count);
            long conflicts = Snapshot().Conflicts;
            await Task.WhenAll(work.Select(document => MigrateLimitedAsync(document, cancellationToken))).ConfigureAwait(false);
            if (Snapshot().Conflicts > conflicts)
            {
                return found;
            }
        }
    }

    // How many documents of the range were not written since the survey began (those the job may still have to rewrite).
    private async Task<long> CountNotWrittenSinceAsync(FeedRange range, long before, CancellationToken cancellationToken)
    {
        string query = string.Create(CultureInfo.InvariantCulture, $"SELECT VALUE COUNT(1) FROM c WHERE c._ts < {before}");
        long count = 0;
        using var iterator = ResumableQueryIterator.Over(_container, query, range);
        while (iterator.HasMoreResults)
        {
            using ResponseMessage response = await iterator.ReadNextSettledAsync(_budget, charged: null, _time, cancellationToken).ConfigureAwait(false);
            response.EnsureSuccessStatusCode();
            using JsonDocument document = await JsonDocument.ParseAsync(response.Content, cancellationToken: cancellationToken).ConfigureAwait(false);
            foreach (JsonElement value in document.RootElement.GetProperty("Documents").EnumerateArray())
            {
                count += value.TryGetInt64(out long part) ? part : 0;
            }
        }

        return count;
    }

    // The newest documents of the range not written since the survey began, judged: those to migrate. Each page is
    // judged as the service sent it, as a feed page is (TOP n may still come in several).
    private async Task<List<StoredDocument>> NewestAsync(FeedRange range, long before, long take, CancellationToken cancellationToken)
    {
        string query = string.Create(CultureInfo.InvariantCulture, $"SELECT TOP {take} * FROM c WHERE c._ts < {before} ORDER BY c._ts DESC");
        var work = new List<StoredDocument>();
        using var iterator = ResumableQueryIterator.Over(_container, query, range);
        while (iterator.HasMoreResults)
        {
            using ResponseMessage response = await iterator.ReadNextSettledAsync(_budget, charged: null, _time, cancellationToken).ConfigureAwait(false);
            response.EnsureSuccessStatusCode();
            using var copy = new MemoryStream();
            await response.Content.CopyToAsync(copy, cancellationToken).ConfigureAwait(false);
            using DataEncryptionKeyLease checkKey = await _target.LeaseCheckKeyAsync(cancellationToken).ConfigureAwait(false);
            work.AddRange(_migrator!.Triage(copy.GetBuffer().AsSpan(0, (int)copy.Length), checkKey, fromFeed: false));
        }

        return work;
    }
}
