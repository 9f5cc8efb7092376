using System.Text.Json;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Migration;

/// <summary>
/// The survey before a job's first write, made once per job instead of once per instance: the container's feed ranges
/// (fixed in a round record when the first instance starts) are claimed one by one through the lease container
/// (<see cref="SurveyRecords"/>, <see cref="RangeClaims"/>), each scanned by the instance that claimed it and its result
/// recorded; an instance helps with unclaimed ranges and waits for claimed ones; the survey is the merge of every
/// range's result. An instance that joins later finds every range done and scans nothing. A claim not renewed for
/// <see cref="RangeClaims.ClaimLifetime"/> (its owner stopped or died) is taken over; a record that cannot be trusted
/// (another job, target or range; unreadable; older than <see cref="SurveyRecords.ReuseWindow"/>) is scanned again.
/// </summary>
/// <param name="records">The round's records.</param>
/// <param name="claims">This instance's view of the claims.</param>
/// <param name="scan">Surveys one feed range (transient failures already retried).</param>
/// <param name="time">The clock of the waits and of the claims' renewal.</param>
internal sealed class SharedSurvey(SurveyRecords records, RangeClaims claims, Func<FeedRange, CancellationToken, Task<ContainerSurvey>> scan, TimeProvider time)
{
    private long _documentsScanned;

    /// <summary>Documents this instance read in its own range scans (0 for an instance that found the survey done).</summary>
    public long DocumentsScanned => Interlocked.Read(ref _documentsScanned);

    /// <summary>Ranges this instance scanned and recorded.</summary>
    public int RangesRecorded { get; private set; }

    /// <summary>The survey of the whole container, shared with the job's other instances.</summary>
    /// <param name="owner">This instance's name (the claims' owner).</param>
    /// <param name="ranges">The container's feed ranges now, asked for only when this instance opens a new round.</param>
    /// <param name="target">The job's target (whose paths the survey counts).</param>
    /// <param name="poll">How long to wait before looking again while every range left is claimed by another instance.</param>
    /// <param name="cancellationToken">Cancels the survey (a claim held is left to expire).</param>
    /// <exception cref="CosmosException">The lease container or the container refused a request.</exception>
    public async Task<ContainerSurvey> RunAsync(
        string owner, Func<CancellationToken, Task<IReadOnlyList<FeedRange>>> ranges, ContainerEncryptionPolicy? target, TimeSpan poll, CancellationToken cancellationToken)
    {
        SurveyRound round = await TransientFailures.RetryAsync(token => records.OpenRoundAsync(ranges, token), time, cancellationToken).ConfigureAwait(false);
        while (true)
        {
            (List<RangeRecord> found, Dictionary<int, JsonElement> results) = await TransientFailures.RetryAsync(
                token => records.ReadRangesAsync(round, token), time, cancellationToken).ConfigureAwait(false);
            RangeChoice choice = claims.Next(found, round.Ranges.Count);
            if (choice.Kind == RangeChoiceKind.Merge)
            {
                return ContainerSurvey.Merge(Enumerable.Range(0, round.Ranges.Count).Select(index => results[index]), target);
            }

            if (choice.Kind == RangeChoiceKind.Wait)
            {
                await Task.Delay(poll, time, cancellationToken).ConfigureAwait(false);
                continue;
            }

            // A claim lost to another instance (it wrote the record first) sends this one back to read the records.
            if (await TransientFailures.RetryAsync(token => records.TryClaimAsync(round, choice.Range, owner, token), time, cancellationToken).ConfigureAwait(false) is { } etag)
            {
                await ScanAndRecordAsync(round, choice.Range.Index, (owner, etag), cancellationToken).ConfigureAwait(false);
            }
        }
    }

    // Scans the claimed range, renewing the claim every third of its lifetime so that the others see the owner alive;
    // a claim taken over meanwhile (the renewal or the record finds another ETag) drops this scan's result.
    private async Task ScanAndRecordAsync(SurveyRound round, int index, (string Owner, string ETag) claim, CancellationToken cancellationToken)
    {
        using var scanning = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        Task<ContainerSurvey> work = scan(FeedRange.FromJsonString(round.Ranges[index]), scanning.Token);
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

        ContainerSurvey survey;
        try
        {
            survey = await work.ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (etag is null && !cancellationToken.IsCancellationRequested)
        {
            return; // the claim was taken over: the new owner scans the range
        }

        Interlocked.Add(ref _documentsScanned, survey.TotalDocuments);
        if (etag is null)
        {
            return;
        }

        string last = etag;
        if (await TransientFailures.RetryAsync(token => records.TryRecordAsync(round, index, last, (claim.Owner, survey), token), time, cancellationToken).ConfigureAwait(false))
        {
            RangesRecorded++;
        }
    }
}
