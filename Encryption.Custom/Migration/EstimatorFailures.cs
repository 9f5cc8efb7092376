namespace Encryption.Custom.Migration;

/// <summary>
/// Which failures of the change feed estimator a run rides out: the estimator only feeds the lag estimate (progress
/// and when to verify), so a failure means "lag unknown this time", not the end of the run. Transient answers always
/// (<see cref="TransientFailures"/>); and the <see cref="InvalidOperationException"/> the SDK's estimator throws while a
/// split moves a lease to its children (seen in 7 of 10 runs with connection resets during splits), for up to
/// <see cref="MaxConsecutive"/> reports in a row: an estimator that fails that way for good would otherwise hold the
/// run forever, since the completion rule never verifies while the lag is unknown.
/// </summary>
internal sealed class EstimatorFailures
{
    /// <summary>Reports in a row an <see cref="InvalidOperationException"/> is ridden out (a minute at the default 5 s progress interval).</summary>
    public const int MaxConsecutive = 12;

    private int _consecutive;

    /// <summary>The estimator answered: the count starts again.</summary>
    public void Succeeded() => _consecutive = 0;

    /// <summary>Whether the run goes on without an estimate this time; false: the failure ends the run.</summary>
    public bool Tolerate(Exception exception, CancellationToken cancellationToken)
    {
        if (TransientFailures.IsTransient(exception, cancellationToken))
        {
            return true;
        }

        return exception is InvalidOperationException && !cancellationToken.IsCancellationRequested && ++_consecutive <= MaxConsecutive;
    }
}
