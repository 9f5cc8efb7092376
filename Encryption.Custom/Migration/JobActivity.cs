namespace Encryption.Custom.Migration;

/// <summary>One instance's latest activity record, as the lease container holds it.</summary>
/// <param name="Instance">The instance's name.</param>
/// <param name="Work">Documents it rewrote, failed or met a conflict on in its current run.</param>
/// <param name="Reports">How many records it has written in its current run (it writes one per progress report).</param>
/// <param name="Timestamp">The service's time of the record's last write (<c>_ts</c>, seconds): one clock for every instance.</param>
/// <param name="IntervalSeconds">The instance's progress interval, which says how soon its next record is due.</param>
internal readonly record struct InstanceActivity(string Instance, long Work, long Reports, long Timestamp, double IntervalSeconds);

/// <summary>
/// Whether the job as a whole, every instance sharing its leases, did any work since the last look, and which
/// instance sweeps what a verification finds. One instance's own pages say nothing about the leases another instance
/// holds: judged by them, an instance whose leases had drained verified while another still had thousands of
/// documents ahead, and its sweep raced that instance's feed (a 412 for every document both touched). So every
/// instance writes its counts to the lease container (<see cref="JobActivityBoard"/>), and the job is idle only when
/// every live instance has written again since the last look, none of the counts moved, and every instance that owns
/// a lease is live.
/// </summary>
/// <remarks>
/// Live means written within <see cref="LivenessSeconds"/> of this instance's own latest record, on the service's
/// clock: an instance that stopped or died drops out after a few of its intervals (at least 10 s), so that it does
/// not hold the others back; its leases are then either expired and taken over, or their documents are what the
/// sweep is for. Only the live instance first by name (ordinal) sweeps, so that two instances finding the same
/// documents at once do not both rewrite them.
/// </remarks>
internal sealed class JobActivity(string self)
{
    /// <summary>The shortest time, in seconds, after which an instance that wrote no record counts as gone.</summary>
    public const double MinimumLivenessSeconds = 10;

    private Dictionary<string, (long Work, long Reports)>? _last;
    private long _aloneReports;

    /// <summary>Whether this instance sweeps (the first live instance by name); true until a look has been taken.</summary>
    public bool Sweeps { get; private set; } = true;

    /// <summary>How long, in seconds, a record with <paramref name="intervalSeconds"/> keeps its instance live.</summary>
    public static double LivenessSeconds(double intervalSeconds) => Math.Max(MinimumLivenessSeconds, 3 * intervalSeconds);

    /// <summary>
    /// The other instances that own a lease but wrote no record lately, as of the last look (stopped, killed, or of a
    /// version that writes none): the job waits for them until their leases expire and are taken over.
    /// </summary>
    public IReadOnlyList<string> SilentOwners { get; private set; } = [];

    /// <summary>
    /// Takes a look at <paramref name="records"/> (every instance's latest, this one's just written) and says whether
    /// the job did nothing since the previous look. Without this instance's own record nothing is known: not idle.
    /// An instance in <paramref name="leaseOwners"/> (the owners of the job's leases) without a live record may be
    /// working on them: not idle either.
    /// </summary>
    public bool Idle(IReadOnlyList<InstanceActivity> records, IReadOnlyCollection<string>? leaseOwners = null)
    {
        ArgumentNullException.ThrowIfNull(records);
        InstanceActivity? own = null;
        foreach (InstanceActivity record in records)
        {
            if (string.Equals(record.Instance, self, StringComparison.Ordinal))
            {
                own = record;
            }
        }

        if (own is not { } mine)
        {
            _last = null;
            return false;
        }

        var live = new Dictionary<string, (long Work, long Reports)>(StringComparer.Ordinal);
        foreach (InstanceActivity record in records)
        {
            if (mine.Timestamp - record.Timestamp <= LivenessSeconds(record.IntervalSeconds))
            {
                live[record.Instance] = (record.Work, record.Reports);
            }
        }

        bool idle = _last is not null;
        foreach ((string instance, (long work, long reports)) in live)
        {
            // Another instance must have reported again since the last look (else its silence says nothing yet);
            // this one reports at every look.
            bool unchanged = _last is not null && _last.TryGetValue(instance, out var before) && before.Work == work
                && (before.Reports < reports || string.Equals(instance, self, StringComparison.Ordinal));
            idle &= unchanged;
        }

        var silent = new List<string>();
        foreach (string owner in leaseOwners ?? [])
        {
            if (!live.ContainsKey(owner) && !string.Equals(owner, self, StringComparison.Ordinal))
            {
                silent.Add(owner);
            }
        }

        silent.Sort(StringComparer.Ordinal);
        SilentOwners = silent;
        _last = live;
        Sweeps = live.Keys.Min(StringComparer.Ordinal) is { } first && string.Equals(first, self, StringComparison.Ordinal);
        return idle && silent.Count == 0;
    }

    /// <summary>
    /// This instance's record when no other instance holds a lease (then nothing is read, and only a heartbeat is
    /// written, <see cref="JobActivityBoard"/>): its own counts, a new report each time, so that its idleness is its
    /// own work standing still.
    /// </summary>
    public InstanceActivity Alone(long work) => new(self, work, ++_aloneReports, Timestamp: 0, IntervalSeconds: 0);

    /// <summary>Forgets the last look (its records could not be read): the next look cannot be idle.</summary>
    public void Unknown() => _last = null;
}
