namespace Encryption.Custom.Migration;

/// <summary>What the lease container holds for one range of a shared scan (<see cref="SharedRangeScan"/>), as read.</summary>
internal enum RangeRecordState
{
    /// <summary>No record: nobody has claimed the range yet.</summary>
    Missing,

    /// <summary>An instance claimed the range and is scanning it (or was, until it stopped renewing its claim).</summary>
    Claimed,

    /// <summary>The range's result is recorded.</summary>
    Done,

    /// <summary>
    /// A record that is not trusted: it cannot be read, names another range, job or target, or its result is older
    /// than a result may be reused. The range is scanned again (fail closed), the record replaced on its ETag.
    /// </summary>
    Untrusted,
}

/// <summary>One range's record as read: its index in the round, ETag (for the conditional write that replaces it), state and owner.</summary>
internal readonly record struct RangeRecord(int Index, string? ETag, RangeRecordState State, string? Owner);

/// <summary>What an instance does next in a shared scan.</summary>
/// <param name="Kind">Claim a range, wait for claimed ones, or merge (every range is done).</param>
/// <param name="Range">The range to claim (with <see cref="RangeChoiceKind.Claim"/>).</param>
internal readonly record struct RangeChoice(RangeChoiceKind Kind, RangeRecord Range = default);

/// <summary>The kinds of <see cref="RangeChoice"/>.</summary>
internal enum RangeChoiceKind
{
    /// <summary>Claim <see cref="RangeChoice.Range"/> (create its record, or replace it on its ETag) and scan it.</summary>
    Claim,

    /// <summary>Every range not done is claimed by a live instance: look again later.</summary>
    Wait,

    /// <summary>Every range is done: merge their results.</summary>
    Merge,
}

/// <summary>
/// Which range of a shared scan an instance claims next, and when another instance's claim counts as abandoned. A
/// claim is renewed by its owner (every third of <paramref name="claimLifetime"/>, <see cref="SharedRangeScan"/>), which
/// changes its ETag; a claim whose ETag this instance has seen unchanged for the whole lifetime, on this instance's
/// own clock, is abandoned (its owner stopped or died) and is taken over. Judged by what this instance observed and
/// its own clock only, so the instances' clocks need not agree. Instances start their search at different ranges
/// (from their names) so that several starting together claim different ranges rather than race for the first.
/// </summary>
internal sealed class RangeClaims(string self, TimeSpan claimLifetime, TimeProvider time)
{
    private readonly Dictionary<int, (string? ETag, DateTimeOffset Since)> _seen = [];

    /// <summary>How long a claim not renewed is respected.</summary>
    public TimeSpan ClaimLifetime => claimLifetime;

    /// <summary>The next step, from every range's record (one per range of the round, in any order; a range without one is <see cref="RangeRecordState.Missing"/>).</summary>
    /// <param name="records">The records read.</param>
    /// <param name="rangeCount">How many ranges the round has.</param>
    /// <param name="scanning">The ranges this instance is scanning now (never claimed again while it does; waited for).</param>
    public RangeChoice Next(IReadOnlyCollection<RangeRecord> records, int rangeCount, IReadOnlyCollection<int>? scanning = null)
    {
        ArgumentNullException.ThrowIfNull(records);
        var byIndex = new RangeRecord?[rangeCount];
        foreach (RangeRecord record in records)
        {
            if (record.Index >= 0 && record.Index < rangeCount)
            {
                byIndex[record.Index] = record;
            }
        }

        DateTimeOffset now = time.GetUtcNow();
        bool done = true;
        RangeRecord? claimable = null;
        int start = rangeCount == 0 ? 0 : (int)(StableHash(self) % (uint)rangeCount);
        for (int step = 0; step < rangeCount; step++)
        {
            int index = (start + step) % rangeCount;
            RangeRecord record = byIndex[index] ?? new RangeRecord(index, null, RangeRecordState.Missing, null);
            if (record.State == RangeRecordState.Done)
            {
                _seen.Remove(index);
                continue;
            }

            done = false;
            if (claimable is null && scanning?.Contains(index) != true && Claimable(record, now))
            {
                claimable = record;
            }
        }

        return done ? new RangeChoice(RangeChoiceKind.Merge)
            : claimable is { } range ? new RangeChoice(RangeChoiceKind.Claim, range)
            : new RangeChoice(RangeChoiceKind.Wait);
    }

    private bool Claimable(RangeRecord record, DateTimeOffset now)
    {
        // This instance's own claim, read back while it is not scanning: left by an earlier run under its name.
        if (record.State is RangeRecordState.Missing or RangeRecordState.Untrusted || string.Equals(record.Owner, self, StringComparison.Ordinal))
        {
            return true;
        }

        if (!_seen.TryGetValue(record.Index, out var seen) || !string.Equals(seen.ETag, record.ETag, StringComparison.Ordinal))
        {
            // A claim seen for the first time, or renewed since: respected for a whole lifetime from now.
            _seen[record.Index] = (record.ETag, now);
            return false;
        }

        return now - seen.Since >= claimLifetime;
    }

    /// <summary>FNV-1a: the same value for the same name in every process (string.GetHashCode is randomized per process).</summary>
    internal static uint StableHash(string value)
    {
        uint hash = 2166136261;
        foreach (char c in value)
        {
            hash = (hash ^ c) * 16777619;
        }

        return hash;
    }
}
