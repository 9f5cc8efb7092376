using System.Net;
using System.Text.Json;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Migration;

/// <summary>
/// Deleting the records of rounds a newer round supersedes: garbage once the newer round is merged, since no instance
/// joins an older round again (docs/migration.md, "Scans shared by the instances").
/// </summary>
internal sealed partial class RangeScanRecords
{
    /// <summary>
    /// How long a superseded round's range record is left after its last write before <see cref="DeleteSupersededAsync"/>
    /// deletes it (default a minute, two claim lifetimes). Only for economy: an instance still reading a round that
    /// another instance has superseded finds a deleted record missing and scans that range again.
    /// </summary>
    public TimeSpan SupersededGrace { get; init; } = TimeSpan.FromMinutes(1);

    /// <summary>
    /// Deletes the range records of this job's and fingerprint's rounds numbered below <paramref name="current"/> whose
    /// last write is older than <see cref="SupersededGrace"/>: no instance joins such a round again (a join reads the
    /// round record, which names <paramref name="current"/> or a later round, and takes only that round's records).
    /// Each delete is conditional on the ETag read, so a record written since is left; a record that does not name this
    /// job, fingerprint and kind is never deleted, nor is a round record (a round numbered again from 1 could otherwise
    /// meet an old round's records). Returns how many were deleted.
    /// </summary>
    public async Task<int> DeleteSupersededAsync(ScanRound current, CancellationToken cancellationToken)
    {
        QueryDefinition query = new QueryDefinition("SELECT c.id, c.kind, c.processor, c.fingerprint, c.roundId, c.round, c._ts, c._etag FROM c WHERE c.kind = @kind AND c.roundId = @roundId AND c.round < @round")
            .WithParameter("@kind", _rangeKind)
            .WithParameter("@roundId", _roundId)
            .WithParameter("@round", current.Number);
        var superseded = new List<(string Id, string ETag)>();
        DateTimeOffset now = time.GetUtcNow();
        await LeaseContainerQuery.ForEachRowAsync(leaseContainer, query, budget, row =>
        {
            if (IsSuperseded(row, current, now) is { } record)
            {
                superseded.Add(record);
            }
        }, cancellationToken).ConfigureAwait(false);

        int deleted = 0;
        foreach ((string id, string etag) in superseded)
        {
            using ResponseMessage answer = await leaseContainer.DeleteItemStreamAsync(id, new PartitionKey(id), new ItemRequestOptions { IfMatchEtag = etag }, cancellationToken).ConfigureAwait(false);
            Charge(answer);
            if (answer.StatusCode is HttpStatusCode.NotFound or HttpStatusCode.PreconditionFailed)
            {
                continue; // deleted by another instance, or written since: not this one's to delete
            }

            answer.EnsureSuccessStatusCode();
            deleted++;
        }

        return deleted;
    }

    // A range record of this job, fingerprint and round id, of a round before the current one, untouched for the grace:
    // its id and ETag; else null (left as it is).
    private (string Id, string ETag)? IsSuperseded(JsonElement row, ScanRound current, DateTimeOffset now)
    {
        if (!Is(row, "kind", _rangeKind) || !Is(row, "processor", processorName) || !Is(row, "fingerprint", fingerprint) || !Is(row, "roundId", _roundId)
            || !row.TryGetProperty("round", out JsonElement number) || !number.TryGetInt32(out int round) || round >= current.Number
            || !row.TryGetProperty("id", out JsonElement id) || id.ValueKind != JsonValueKind.String
            || !row.TryGetProperty("_etag", out JsonElement etag) || etag.ValueKind != JsonValueKind.String
            || Stamp(row) is 0 || now - DateTimeOffset.FromUnixTimeSeconds(Stamp(row)) < SupersededGrace)
        {
            return null;
        }

        return (id.GetString()!, etag.GetString()!);
    }
}
