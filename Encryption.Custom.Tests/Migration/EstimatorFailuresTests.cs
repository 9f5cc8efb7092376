using System.Net;
using Encryption.Custom.Migration;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// The change feed estimator only feeds an estimate: its transient failures and, for a while, the
/// InvalidOperationException the SDK throws while a split moves leases leave the lag unknown instead of ending the run.
/// </summary>
public sealed class EstimatorFailuresTests
{
    [Fact]
    public void InvalidOperation_IsRiddenOutForALimitedRun_AndTheCountStartsAgainAfterASuccess()
    {
        var failures = new EstimatorFailures();
        var split = new InvalidOperationException("lease moved by a split");

        for (int report = 0; report < EstimatorFailures.MaxConsecutive; report++)
        {
            Assert.True(failures.Tolerate(split, CancellationToken.None));
        }

        Assert.False(failures.Tolerate(split, CancellationToken.None));

        failures.Succeeded();
        Assert.True(failures.Tolerate(split, CancellationToken.None));
    }

    [Fact]
    public void TransientAnswers_AreAlwaysRiddenOut_OtherFailuresAndCancellationAreNot()
    {
        var failures = new EstimatorFailures();
        var throttled = new CosmosException("throttled", (HttpStatusCode)429, 3200, "a", 1);

        Assert.All(Enumerable.Range(0, 3 * EstimatorFailures.MaxConsecutive), _ => Assert.True(failures.Tolerate(throttled, CancellationToken.None)));
        Assert.False(failures.Tolerate(new CosmosException("gone", HttpStatusCode.NotFound, 0, "a", 1), CancellationToken.None));
        Assert.False(failures.Tolerate(new ArgumentException("bug"), CancellationToken.None));
        Assert.False(failures.Tolerate(new InvalidOperationException("split"), new CancellationToken(canceled: true)));
    }
}
