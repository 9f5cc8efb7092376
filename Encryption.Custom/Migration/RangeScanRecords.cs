using System.Net;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Migration;

/// <summary>
/// A shared scan's records in the job's lease container (<see cref="SharedRangeScan"/>; the survey's kind is
/// <c>encryption-migration-survey</c>, the verification's <c>encryption-migration-verification</c>): one round record
/// <c>{ kind, processor, fingerprint, round, ranges: [feed range JSON…] }</c> per job and fingerprint, and one record
/// per range of the round, <c>{ kind: kind + "-range", processor, fingerprint, round, index, range, state: "claimed" |
/// "done", owner, result? }</c>. Every write is
/// conditional (create, or replace on the ETag read), as the change feed processor's own leases are, so two
/// instances never both believe they hold a range. Written and read as streams (the lease container's client may have
/// any serializer); ids are hashes (valid whatever the names hold, never a lease id). Each request is charged to the
/// job's budget.
/// </summary>
internal sealed partial class RangeScanRecords(Container leaseContainer, string kind, string processorName, string fingerprint, RequestUnitBudget? budget, TimeProvider time)
{
    /// <summary>The kind of the survey's records.</summary>
    public const string SurveyKind = "encryption-migration-survey";

    /// <summary>The kind of the verification's records.</summary>
    public const string VerificationKind = "encryption-migration-verification";

    /// <summary>
    /// How long after a round's last write (its opening, a claim, a renewal, a result) its results are still used: a
    /// result recorded longer ago describes a container the application may have changed since (a path encrypted
    /// meanwhile that the target would decrypt), so a new round is opened and the container scanned again. A round in
    /// progress is written every few seconds (claims are renewed while their ranges are scanned), however long its
    /// scans take. The survey's default: the instances of one run that start within the hour share one survey.
    /// </summary>
    public static readonly TimeSpan DefaultReuseWindow = TimeSpan.FromHours(1);

    private readonly string _roundId = kind + "-" + Hash(processorName + "\n" + fingerprint);
    private readonly string _rangeKind = kind + "-range";

    /// <summary>How long after a round's last write its results are used (<see cref="DefaultReuseWindow"/>).</summary>
    public TimeSpan ReuseWindow { get; init; } = DefaultReuseWindow;

    /// <summary>Whether a recorded result reads back as one of this scan's (else its range is scanned again).</summary>
    public Func<JsonElement, bool> IsResult { get; init; } = _ => true;

    /// <summary>
    /// What a survey depends on besides the documents, as a hash: the container, the target (its key and each path
    /// with its type), the keys whose documents' types are checked, and the reader. Records of another fingerprint are
    /// another survey's, never merged into this one.
    /// </summary>
    public static string Fingerprint(string container, ContainerEncryptionPolicy? target, IEnumerable<string> keyIds, string reader)
    {
        var text = new StringBuilder("v1\n").Append(container).Append('\n').Append(reader).Append('\n');
        text.Append(target is null ? "decrypt" : target.DataEncryptionKeyId).Append('\n');
        foreach (EncryptionPolicyIncludedPath path in target?.IncludedPaths.OrderBy(p => p.Path, StringComparer.Ordinal) ?? Enumerable.Empty<EncryptionPolicyIncludedPath>())
        {
            text.Append(path.Path).Append(' ').Append(path.EncryptionType).Append('\n');
        }

        foreach (string id in keyIds.Order(StringComparer.Ordinal))
        {
            text.Append("key ").Append(id).Append('\n');
        }

        return Hash(text.ToString());
    }

    /// <summary>
    /// The round to join: the recorded one, or a new one over <paramref name="ranges"/> (the container's feed ranges
    /// now) when there is none or the recorded one cannot be trusted (unreadable, or another job's or fingerprint's).
    /// A round's ranges never change: after a split its parent ranges are still scanned as recorded, each child's
    /// documents within its parent's, so the round covers the container exactly once.
    /// </summary>
    public async Task<ScanRound> OpenRoundAsync(Func<CancellationToken, Task<IReadOnlyList<FeedRange>>> ranges, CancellationToken cancellationToken)
    {
        while (true)
        {
            using ResponseMessage read = await leaseContainer.ReadItemStreamAsync(_roundId, new PartitionKey(_roundId), cancellationToken: cancellationToken).ConfigureAwait(false);
            Charge(read);
            int next = 1;
            string? etag = null;
            if (read.StatusCode != HttpStatusCode.NotFound)
            {
                read.EnsureSuccessStatusCode();
                using JsonDocument document = await JsonDocument.ParseAsync(read.Content, cancellationToken: cancellationToken).ConfigureAwait(false);
                if (ReadRound(document.RootElement) is { } round)
                {
                    return round with { ETag = read.Headers.ETag, Written = Stamp(document.RootElement) };
                }

                // Not trusted: replaced by a new round (on its ETag), whose ranges are scanned afresh.
                etag = read.Headers.ETag;
                next = document.RootElement.TryGetProperty("round", out JsonElement number) && number.TryGetInt32(out int old) && old > 0 ? old + 1 : 1;
            }

            if (await WriteRoundAsync(next, etag, ranges, cancellationToken).ConfigureAwait(false) is { } created)
            {
                return created;
            }

            // Another instance opened a round first: join it.
        }
    }

    /// <summary>
    /// Opens the round after <paramref name="current"/> (its results are too old, or this instance needs a scan made
    /// after its own request): the new round, or null when another instance replaced <paramref name="current"/> first
    /// (then <see cref="OpenRoundAsync"/> reads the one it opened).
    /// </summary>
    public Task<ScanRound?> NextRoundAsync(ScanRound current, Func<CancellationToken, Task<IReadOnlyList<FeedRange>>> ranges, CancellationToken cancellationToken) =>
        WriteRoundAsync(current.Number + 1, current.ETag, ranges, cancellationToken);

    /// <summary>The number of the recorded round, 0 when there is none or it cannot be trusted (a round after it is then new).</summary>
    public async Task<int> CurrentRoundAsync(CancellationToken cancellationToken)
    {
        using ResponseMessage read = await leaseContainer.ReadItemStreamAsync(_roundId, new PartitionKey(_roundId), cancellationToken: cancellationToken).ConfigureAwait(false);
        Charge(read);
        if (read.StatusCode == HttpStatusCode.NotFound)
        {
            return 0;
        }

        read.EnsureSuccessStatusCode();
        using JsonDocument document = await JsonDocument.ParseAsync(read.Content, cancellationToken: cancellationToken).ConfigureAwait(false);
        return ReadRound(document.RootElement)?.Number ?? 0;
    }

    /// <summary>Whether <paramref name="round"/>'s results may still be used: its last write, <paramref name="newest"/> among its ranges' (service seconds), within <see cref="ReuseWindow"/>.</summary>
    public bool IsLive(ScanRound round, long newest) =>
        time.GetUtcNow() - DateTimeOffset.FromUnixTimeSeconds(Math.Max(round.Written, newest)) <= ReuseWindow;

    private async Task<ScanRound?> WriteRoundAsync(int number, string? etag, Func<CancellationToken, Task<IReadOnlyList<FeedRange>>> ranges, CancellationToken cancellationToken)
    {
        IReadOnlyList<FeedRange> feedRanges = await ranges(cancellationToken).ConfigureAwait(false);
        var created = new ScanRound(number, [.. feedRanges.Select(range => range.ToJsonString())], null) { Written = time.GetUtcNow().ToUnixTimeSeconds() };
        using MemoryStream body = Body(writer =>
        {
            Common(writer, _roundId, kind, created.Number);
            writer.WriteStartArray("ranges");
            foreach (string range in created.Ranges)
            {
                writer.WriteStringValue(range);
            }

            writer.WriteEndArray();
        });
        using ResponseMessage written = etag is null
            ? await leaseContainer.CreateItemStreamAsync(body, new PartitionKey(_roundId), cancellationToken: cancellationToken).ConfigureAwait(false)
            : await leaseContainer.ReplaceItemStreamAsync(body, _roundId, new PartitionKey(_roundId), new ItemRequestOptions { IfMatchEtag = etag }, cancellationToken).ConfigureAwait(false);
        Charge(written);
        if (written.StatusCode is HttpStatusCode.Conflict or HttpStatusCode.PreconditionFailed or HttpStatusCode.NotFound)
        {
            return null;
        }

        written.EnsureSuccessStatusCode();
        return created with { ETag = written.Headers.ETag };
    }

    /// <summary>Every range record of <paramref name="round"/>, the results of those done (by index), and the newest record's write (<c>_ts</c>).</summary>
    public async Task<(List<RangeRecord> Records, Dictionary<int, JsonElement> Results, long Newest)> ReadRangesAsync(ScanRound round, CancellationToken cancellationToken)
    {
        QueryDefinition query = new QueryDefinition("SELECT * FROM c WHERE c.kind = @kind AND c.roundId = @roundId AND c.round = @round")
            .WithParameter("@kind", _rangeKind)
            .WithParameter("@roundId", _roundId)
            .WithParameter("@round", round.Number);
        var records = new List<RangeRecord>();
        var results = new Dictionary<int, JsonElement>();
        long newest = 0;
        await LeaseContainerQuery.ForEachRowAsync(leaseContainer, query, budget, row =>
        {
            (RangeRecord record, JsonElement? result) = ReadRange(row, round);
            records.Add(record);
            newest = Math.Max(newest, Stamp(row));
            if (result is { } survey)
            {
                results[record.Index] = survey.Clone();
            }
        }, cancellationToken).ConfigureAwait(false);
        return (records, results, newest);
    }

    /// <summary>Claims <paramref name="range"/> for <paramref name="owner"/>: its new ETag, or null when another instance wrote the record first.</summary>
    public Task<string?> TryClaimAsync(ScanRound round, RangeRecord range, string owner, CancellationToken cancellationToken) =>
        WriteRangeAsync(round, range.Index, range.State == RangeRecordState.Missing ? null : range.ETag, owner, null, cancellationToken);

    /// <summary>Renews a claim (its ETag changes, which tells the others its owner is alive): the new ETag, or null when the claim was taken over.</summary>
    public Task<string?> RenewAsync(ScanRound round, int index, string etag, string owner, CancellationToken cancellationToken) =>
        WriteRangeAsync(round, index, etag, owner, null, cancellationToken);

    /// <summary>Records a range's result on the claim's ETag: false when the claim was taken over meanwhile (the result is dropped).</summary>
    public async Task<bool> TryRecordAsync(ScanRound round, int index, string etag, (string Owner, Action<Utf8JsonWriter> Result) result, CancellationToken cancellationToken) =>
        await WriteRangeAsync(round, index, etag, result.Owner, result.Result, cancellationToken).ConfigureAwait(false) is not null;

    private async Task<string?> WriteRangeAsync(ScanRound round, int index, string? etag, string owner, Action<Utf8JsonWriter>? result, CancellationToken cancellationToken)
    {
        string id = RangeId(round, index);
        using MemoryStream body = Body(writer =>
        {
            Common(writer, id, _rangeKind, round.Number);
            writer.WriteString("roundId", _roundId);
            writer.WriteNumber("index", index);
            writer.WriteString("range", round.Ranges[index]);
            writer.WriteString("owner", owner);
            writer.WriteString("state", result is null ? "claimed" : "done");
            if (result is not null)
            {
                writer.WritePropertyName("result");
                result(writer);
            }
        });
        using ResponseMessage written = etag is null
            ? await leaseContainer.CreateItemStreamAsync(body, new PartitionKey(id), cancellationToken: cancellationToken).ConfigureAwait(false)
            : await leaseContainer.ReplaceItemStreamAsync(body, id, new PartitionKey(id), new ItemRequestOptions { IfMatchEtag = etag }, cancellationToken).ConfigureAwait(false);
        Charge(written);
        if (written.StatusCode is HttpStatusCode.Conflict or HttpStatusCode.PreconditionFailed or HttpStatusCode.NotFound)
        {
            return null;
        }

        written.EnsureSuccessStatusCode();
        return written.Headers.ETag;
    }

    // A round record of this job and fingerprint, well formed, with at least one range; else null (not trusted).
    internal ScanRound? ReadRound(JsonElement row)
    {
        if (!Is(row, "kind", kind) || !Is(row, "processor", processorName) || !Is(row, "fingerprint", fingerprint)
            || !row.TryGetProperty("round", out JsonElement number) || !number.TryGetInt32(out int round) || round < 1
            || !row.TryGetProperty("ranges", out JsonElement ranges) || ranges.ValueKind != JsonValueKind.Array || ranges.GetArrayLength() == 0)
        {
            return null;
        }

        var list = new List<string>();
        foreach (JsonElement range in ranges.EnumerateArray())
        {
            if (range.ValueKind != JsonValueKind.String)
            {
                return null;
            }

            list.Add(range.GetString()!);
        }

        return new ScanRound(round, list, null);
    }

    // A range record as this instance may trust it: of this job, fingerprint, round and range; done only with a
    // readable result (how old the round's results may be is the round's: IsLive).
    internal (RangeRecord Record, JsonElement? Result) ReadRange(JsonElement row, ScanRound round)
    {
        int index = row.TryGetProperty("index", out JsonElement value) && value.TryGetInt32(out int parsed) ? parsed : -1;
        string? etag = row.TryGetProperty("_etag", out JsonElement tag) && tag.ValueKind == JsonValueKind.String ? tag.GetString() : null;
        string? owner = row.TryGetProperty("owner", out JsonElement who) && who.ValueKind == JsonValueKind.String ? who.GetString() : null;
        var untrusted = new RangeRecord(index, etag, RangeRecordState.Untrusted, owner);
        if (index < 0 || index >= round.Ranges.Count || etag is null || owner is null || !Is(row, "kind", _rangeKind) || !Is(row, "processor", processorName)
            || !Is(row, "fingerprint", fingerprint) || !Is(row, "range", round.Ranges[index])
            || !row.TryGetProperty("round", out JsonElement number) || !number.TryGetInt32(out int recorded) || recorded != round.Number)
        {
            return (untrusted, null);
        }

        if (Is(row, "state", "claimed"))
        {
            return (untrusted with { State = RangeRecordState.Claimed }, null);
        }

        if (!Is(row, "state", "done") || !row.TryGetProperty("result", out JsonElement result) || !IsResult(result))
        {
            return (untrusted, null);
        }

        return (untrusted with { State = RangeRecordState.Done }, result);
    }

    // The service's time of a record's last write (seconds), 0 when it has none.
    private static long Stamp(JsonElement row) =>
        row.TryGetProperty("_ts", out JsonElement stamp) && stamp.TryGetInt64(out long seconds) ? seconds : 0;

    private string RangeId(ScanRound round, int index) =>
        _rangeKind + "-" + Hash(_roundId + "\n" + round.Number.ToString(System.Globalization.CultureInfo.InvariantCulture) + "\n" + round.Ranges[index]);

    private void Common(Utf8JsonWriter writer, string id, string kind, int round)
    {
        writer.WriteString("id", id);
        writer.WriteString("partitionKey", id); // the change feed processor also takes lease containers keyed by /partitionKey
        writer.WriteString("kind", kind);
        writer.WriteString("processor", processorName);
        writer.WriteString("fingerprint", fingerprint);
        writer.WriteNumber("round", round);
    }

    private static MemoryStream Body(Action<Utf8JsonWriter> members)
    {
        var body = new MemoryStream();
        using (var writer = new Utf8JsonWriter(body))
        {
            writer.WriteStartObject();
            members(writer);
            writer.WriteEndObject();
        }

        body.Position = 0;
        return body;
    }

    private void Charge(ResponseMessage response) => budget?.Charge(response.Headers.RequestCharge);

    private static bool Is(JsonElement row, string name, string expected) =>
        row.TryGetProperty(name, out JsonElement value) && value.ValueKind == JsonValueKind.String && string.Equals(value.GetString(), expected, StringComparison.Ordinal);

    private static string Hash(string text) => Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(text)).AsSpan(0, 16));
}

/// <summary>A scan round as recorded: its number, its ranges (feed range JSON, fixed for the round) and the record's ETag.</summary>
internal sealed record ScanRound(int Number, IReadOnlyList<string> Ranges, string? ETag)
{
    /// <summary>The service's time of the round record's last write (seconds; this instance's clock for a round it opened).</summary>
    public long Written { get; init; }
}
