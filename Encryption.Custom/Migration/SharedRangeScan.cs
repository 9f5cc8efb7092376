using System.Text.Json;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Migration;

/// <summary>
/// A scan of the whole container made once per job instead of once per instance (the survey before the first write,
/// the verification at the end): the container's feed ranges, fixed in a round record when the round is opened, are
/// claimed one by one through the lease container (<see cref="RangeScanRecords"/>, <see cref="RangeClaims"/>), each
/// scanned by the instance that claimed it and its result recorded; an instance helps with unclaimed ranges and waits
/// for claimed ones; the caller merges every range's result. An instance that joins a round whose ranges are done
/// scans nothing. A claim not renewed for <see cref="RangeClaims.ClaimLifetime"/> (its owner stopped or died) is taken
/// over; a record that cannot be trusted (another job, target or range; unreadable) is scanned again; a round whose
/// last write is older than <see cref="RangeScanRecords.ReuseWindow"/> is replaced by a new one.
/// </summary>
/// <param name="records">The rounds' records.</param>
/// <param name="claims">This instance's view of the claims.</param>
/// <param name="scan">Scans one feed range (transient failures already retried) and writes its result, with the documents it read.</param>
/// <param name="time">The clock of the waits and of the claims' renewal.</param>
internal sealed class SharedRangeScan(RangeScanRecords records, RangeClaims claims, Func<FeedRange, CancellationToken, Task<RangeScanResult>> scan, TimeProvider time)
{
    /// <summary>
    /// How many ranges one instance scans at once (each page still waits for the instance's budget, so a tight budget
    /// is shared, not exceeded); default 1. A lone instance scanning its ranges one after another pays a claim, a record
    /// and a look per range in turn, on top of each range's pages (at 100 ms a request, 12,000 documents over 8 ranges
    /// surveyed in about 8 s instead of 5 for one cross-partition query).
    /// </summary>
    public int Parallelism { get; init; } = 1;

    private long _documentsScanned;
    private int _rangesRecorded;

    /// <summary>Documents this instance read in its own range scans (0 for an instance that found the round done).</summary>
    public long DocumentsScanned => Interlocked.Read(ref _documentsScanned);

    /// <summary>Ranges this instance scanned and recorded.</summary>
    public int RangesRecorded => Volatile.Read(ref _rangesRecorded);

    /// <summary>Every range's result of a round numbered above <paramref name="after"/>, shared with the job's other instances.</summary>
    /// <param name="owner">This instance's name (the claims' owner).</param>
    /// <param name="ranges">The container's feed ranges now, asked for only when this instance opens a round.</param>
    /// <param name="after">A round numbered this or lower is not joined (0: any round).</param>
    /// <param name="poll">How long to wait before looking again while every range left is claimed by another instance.</param>
    /// <param name="cancellationToken">Cancels the scan (a claim held is left to expire).</param>
    /// <returns>The round, and each range's result by index.</returns>
    /// <exception cref="CosmosException">The lease container or the container refused a request.</exception>
    public async Task<(ScanRound Round, IReadOnlyList<JsonElement> Results)> RunAsync(
        string owner, Func<CancellationToken, Task<IReadOnlyList<FeedRange>>> ranges, int after, TimeSpan poll, CancellationToken cancellationToken)
    {
        ScanRound round = await OpenAsync(ranges, cancellationToken).ConfigureAwait(false);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        var scanning = new Dictionary<int, Task>();
        try
        {
            while (true)
            {
                if (round.Number <= after)
                {
                    await DrainAsync(scanning).ConfigureAwait(false);
                    round = await NextAsync(round, ranges, cancellationToken).ConfigureAwait(false);
                    continue;
                }

                ScanRound current = round;
                (List<RangeRecord> found, Dictionary<int, JsonElement> results, long newest) = await TransientFailures.RetryAsync(
                    token => records.ReadRangesAsync(current, token), time, cancellationToken).ConfigureAwait(false);
                if (!records.IsLive(round, newest))
                {
                    await DrainAsync(scanning).ConfigureAwait(false);
                    round = await NextAsync(round, ranges, cancellationToken).ConfigureAwait(false);
                    continue;
                }

                RangeChoice choice = claims.Next(found, round.Ranges.Count, scanning.Keys);
                if (choice.Kind == RangeChoiceKind.Merge)
                {
                    await DeleteSupersededQuietlyAsync(round, cancellationToken).ConfigureAwait(false);
                    return (round, [.. Enumerable.Range(0, round.Ranges.Count).Select(index => results[index])]);
                }

                // Claims up to the parallelism from this one read of the records: every claim is a conditional write,
                // so a range another instance claimed since the read is lost (409, 412), and that sends this one back
                // to read the records. (Reading them again before each claim cost a lone instance a look per range,
                // 100 ms each at the measured latency, before its next scan could start.)
                if (choice.Kind == RangeChoiceKind.Claim && scanning.Count < Parallelism)
                {
                    while (choice.Kind == RangeChoiceKind.Claim && scanning.Count < Parallelism)
                    {
                        RangeRecord range = choice.Range;
                        if (await TransientFailures.RetryAsync(token => records.TryClaimAsync(current, range, owner, token), time, cancellationToken).ConfigureAwait(false) is not { } etag)
                        {
                            break;
                        }

                        scanning[range.Index] = ScanAndRecordAsync(round, range.Index, (owner, etag), stop.Token);
                        choice = claims.Next(found, round.Ranges.Count, scanning.Keys);
                    }

                    continue;
                }

                // Every range left is claimed (by another instance, or by this one up to its parallelism): while this
                // instance scans, wait for one of its scans to end; else look again after a poll. Not both: each look is
                // a query of the records charged to the budget, and looking while scanning under a tight budget starved
                // the scans' own pages (a run at 10 RU/s never finished its verification).
                if (scanning.Count == 0)
                {
                    await Task.Delay(poll, time, cancellationToken).ConfigureAwait(false);
                    continue;
                }

                await Task.WhenAny(scanning.Values).ConfigureAwait(false);
                await CollectAsync(scanning).ConfigureAwait(false);
            }
        }
        finally
        {
            // Ended by an exception or a cancellation: the scans still running stop (their claims expire).
            await stop.CancelAsync().ConfigureAwait(false);
            await Task.WhenAll(scanning.Values).ContinueWith(static _ => { }, TaskScheduler.Default).ConfigureAwait(false);
        }
    }

    // The records of rounds before this one are garbage once it is merged (RangeScanRecords.DeleteSupersededAsync). Best
    // effort: a failure leaves them for a later merge to delete, and never fails the scan whose result is in hand.
    private async Task DeleteSupersededQuietlyAsync(ScanRound round, CancellationToken cancellationToken)
    {
        if (round.Number <= 1)
        {
            return;
        }

        try
        {
            await records.DeleteSupersededAsync(round, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is CosmosException || TransientFailures.IsTransient(exception, cancellationToken))
        {
            // Left for later: harmless, see above.
        }
    }

    // Waits for this instance's scans (of a round it leaves), letting a failure out.
    private static async Task DrainAsync(Dictionary<int, Task> scanning)
    {
        await Task.WhenAll(scanning.Values).ConfigureAwait(false);
        scanning.Clear();
    }

    // Forgets the scans that ended, letting a failure out.
    private static async Task CollectAsync(Dictionary<int, Task> scanning)
    {
        foreach ((int index, Task task) in scanning.Where(pair => pair.Value.IsCompleted).ToList())
        {
            scanning.Remove(index);
            await task.ConfigureAwait(false);
        }
    }

    private Task<ScanRound> OpenAsync(Func<CancellationToken, Task<IReadOnlyList<FeedRange>>> ranges, CancellationToken cancellationToken) =>
        TransientFailures.RetryAsync(token => records.OpenRoundAsync(ranges, token), time, cancellationToken);

    // The round after this one; when another instance opened it first, the one recorded now.
    private async Task<ScanRound> NextAsync(ScanRound round, Func<CancellationToken, Task<IReadOnlyList<FeedRange>>> ranges, CancellationToken cancellationToken) =>
        await TransientFailures.RetryAsync(token => records.NextRoundAsync(round, ranges, token), time, cancellationToken).ConfigureAwait(false)
            ?? await OpenAsync(ranges, cancellationToken).ConfigureAwait(false);

    // Scans the claimed range, renewing the claim every third of its lifetime so that the others see the owner alive;
    // a claim taken over meanwhile (the renewal or the record finds another ETag) drops this scan's result.
    private async Task ScanAndRecordAsync(ScanRound round, int index, (string Owner, string ETag) claim, CancellationToken cancellationToken)
    {
        using var scanning = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        Task<RangeScanResult> work = scan(FeedRange.FromJsonString(round.Ranges[index]), scanning.Token);
        string? etag = claim.ETag;
        TimeSpan renewal = claims.ClaimLifetime / 3;
        while (!work.IsCompleted)
        {
            Task delay = Task.Delay(renewal, time, cancellationToken);
            if (await Task.WhenAny(work, delay).ConfigureAwait(false) == work)
            {
                break;
            }

            await delay.ConfigureAwait(false); // throws if the run was cancelled
            string current = etag;
            etag = await TransientFailures.RetryAsync(token => records.RenewAsync(round, index, current, claim.Owner, token), time, cancellationToken).ConfigureAwait(false);
            if (etag is null)
            {
                await scanning.CancelAsync().ConfigureAwait(false);
                break;
            }
        }

        RangeScanResult result;
        try
        {
            result = await work.ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (etag is null && !cancellationToken.IsCancellationRequested)
        {
            return; // the claim was taken over: the new owner scans the range
        }

        Interlocked.Add(ref _documentsScanned, result.Documents);
        if (etag is null)
        {
            return;
        }

        string last = etag;
        if (await TransientFailures.RetryAsync(token => records.TryRecordAsync(round, index, last, (claim.Owner, result.Write), token), time, cancellationToken).ConfigureAwait(false))
        {
            Interlocked.Increment(ref _rangesRecorded);
        }
    }
}

/// <summary>One range's scan: the documents it read, and how its result is written into the range's record.</summary>
internal readonly record struct RangeScanResult(long Documents, Action<Utf8JsonWriter> Write);
