namespace Encryption.Custom.Migration;

/// <summary>What a run does after a verification.</summary>
internal enum CompletionStep
{
    /// <summary>Every document is in the target state (reported failures aside): the run is done.</summary>
    Done,

    /// <summary>The same documents outstanding twice with nothing done in between: give up on them (they cannot be read as documents).</summary>
    Stuck,

    /// <summary>Migrate what the verification found, then look again.</summary>
    Sweep,

    /// <summary>Another instance sweeps what the verification found (<see cref="JobActivity.Sweeps"/>): look again later.</summary>
    Wait,
}

/// <summary>
/// When a run looks for "done", from one progress report to the next. Done is only ever what a verification finds;
/// the estimator's lag (over every lease of the job) says when to look: when it is zero and nothing is in flight, or
/// when the job as a whole (every instance sharing the leases, <see cref="JobActivity"/>) did nothing since the last
/// report although the lag is above zero (an application writing in the target state keeps the lag above zero for
/// good, and must not hold the run back). Judged by this instance's own rewrites instead, an instance whose leases had
/// drained looked while another still had thousands of documents ahead, and swept them itself. Separate from the job
/// so that the rule is tested by itself.
/// </summary>
internal sealed class CompletionRule(bool runUntilCancelled)
{
    private long? _lastUnexplained;
    private long _workAtLastVerification = -1;

    /// <summary>
    /// Whether a report with this <paramref name="lag"/> (null when unknown) should run a verification;
    /// <paramref name="jobIdle"/> is whether every instance of the job did nothing since the last report (null when
    /// the instances' records could not be read), <paramref name="inFlight"/> this instance's pages and sweeps running.
    /// </summary>
    public bool ShouldVerify(long? lag, bool? jobIdle, long inFlight) =>
        !runUntilCancelled && lag is { } known && (known == 0 ? inFlight == 0 : jobIdle == true);

    /// <summary>
    /// What to do after a verification found <paramref name="unexplained"/> documents outside the target state and not
    /// reported, at the report <paramref name="snapshot"/>; <paramref name="sweeps"/> is whether this instance is the
    /// one that sweeps.
    /// </summary>
    public CompletionStep Judge(long unexplained, EncryptionMigrationProgress snapshot, bool sweeps = true)
    {
        if (unexplained == 0)
        {
            return CompletionStep.Done;
        }

        if (!sweeps)
        {
            return CompletionStep.Wait;
        }

        long work = snapshot.DocumentsRewritten + snapshot.DocumentsFailed + snapshot.Conflicts;
        if (unexplained == _lastUnexplained && work == _workAtLastVerification)
        {
            return CompletionStep.Stuck;
        }

        _lastUnexplained = unexplained;
        _workAtLastVerification = work;
        return CompletionStep.Sweep;
    }
}
