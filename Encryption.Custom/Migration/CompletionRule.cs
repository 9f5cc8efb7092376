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
}

/// <summary>
/// When a run looks for "done", from one progress report to the next. Done is only ever what a verification finds;
/// the estimator's lag says when to look: when it is zero and nothing is in flight, or when the job rewrote nothing
/// since the last report although the lag is above zero (an application writing in the target state keeps the lag
/// above zero for good, and must not hold the run back). Separate from the job so that the rule is tested by itself.
/// </summary>
internal sealed class CompletionRule(bool runUntilCancelled)
{
    private long _rewrittenAtLastReport = -1;
    private long? _lastUnexplained;
    private long _workAtLastVerification = -1;

    /// <summary>Whether the report <paramref name="snapshot"/> (with this report's <paramref name="lag"/>, null when unknown) should run a verification.</summary>
    public bool ShouldVerify(long? lag, EncryptionMigrationProgress snapshot, long inFlight)
    {
        bool feedIdle = snapshot.DocumentsRewritten == _rewrittenAtLastReport;
        _rewrittenAtLastReport = snapshot.DocumentsRewritten;
        return !runUntilCancelled && lag is { } known && (known == 0 ? inFlight == 0 : feedIdle);
    }

    /// <summary>What to do after a verification found <paramref name="unexplained"/> documents outside the target state and not reported, at the report <paramref name="snapshot"/>.</summary>
    public CompletionStep Judge(long unexplained, EncryptionMigrationProgress snapshot)
    {
        if (unexplained == 0)
        {
            return CompletionStep.Done;
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
