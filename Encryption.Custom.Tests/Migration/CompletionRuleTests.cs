using Encryption.Custom.Migration;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// When a migration run looks for "done" and when it gives up: the rule the job's progress loop follows, report by
/// report, without a container or real time.
/// </summary>
public sealed class CompletionRuleTests
{
    [Fact]
    public void ShouldVerify_LagZeroAndNothingInFlight_Verifies_ButNotWhileAPageIsInFlight()
    {
        var rule = new CompletionRule(runUntilCancelled: false);

        Assert.False(rule.ShouldVerify(lag: 0, jobIdle: false, inFlight: 1));
        Assert.True(rule.ShouldVerify(lag: 0, jobIdle: false, inFlight: 0));
    }

    [Fact]
    public void ShouldVerify_LagAboveZero_VerifiesOnlyOnceTheWholeJobDidNothingSinceTheLastReport()
    {
        // An application writing in the target state keeps the lag above zero for good: the job's rewrites stopping,
        // in every instance, is what says the feed has nothing left for it. Unknown (the records unreadable) is not idle.
        var rule = new CompletionRule(runUntilCancelled: false);

        Assert.False(rule.ShouldVerify(lag: 500, jobIdle: false, inFlight: 0));
        Assert.False(rule.ShouldVerify(lag: 470, jobIdle: null, inFlight: 0));
        Assert.True(rule.ShouldVerify(lag: 900, jobIdle: true, inFlight: 3));
    }

    [Fact]
    public void ShouldVerify_LagUnknown_NeverVerifies()
    {
        var rule = new CompletionRule(runUntilCancelled: false);

        Assert.False(rule.ShouldVerify(lag: null, jobIdle: true, inFlight: 0));
        Assert.False(rule.ShouldVerify(lag: null, jobIdle: true, inFlight: 0));
    }

    [Fact]
    public void ShouldVerify_RunUntilCancelled_NeverVerifies()
    {
        var rule = new CompletionRule(runUntilCancelled: true);

        Assert.False(rule.ShouldVerify(lag: 0, jobIdle: true, inFlight: 0));
        Assert.False(rule.ShouldVerify(lag: 7, jobIdle: true, inFlight: 0));
    }

    [Fact]
    public void Judge_AnotherInstanceSweeps_Waits_NeverStuck()
    {
        var rule = new CompletionRule(runUntilCancelled: false);

        Assert.Equal(CompletionStep.Wait, rule.Judge(4, Report(rewritten: 10), sweeps: false));
        Assert.Equal(CompletionStep.Wait, rule.Judge(4, Report(rewritten: 10), sweeps: false));
        Assert.Equal(CompletionStep.Done, rule.Judge(0, Report(rewritten: 10), sweeps: false));
    }

    [Fact]
    public void Judge_NothingUnexplained_IsDone()
    {
        var rule = new CompletionRule(runUntilCancelled: false);

        Assert.Equal(CompletionStep.Done, rule.Judge(0, Report(rewritten: 3)));
    }

    [Fact]
    public void Judge_TheSameDocumentsOutstandingTwiceWithNothingDoneBetween_IsStuck_ButAnyWorkBetweenSweepsAgain()
    {
        var rule = new CompletionRule(runUntilCancelled: false);

        Assert.Equal(CompletionStep.Sweep, rule.Judge(4, Report(rewritten: 10)));

        // The sweep rewrote, failed or redid something: look again.
        Assert.Equal(CompletionStep.Sweep, rule.Judge(4, Report(rewritten: 10, failed: 1)));
        Assert.Equal(CompletionStep.Sweep, rule.Judge(4, Report(rewritten: 10, failed: 1, conflicts: 2)));

        // Fewer outstanding is progress too.
        Assert.Equal(CompletionStep.Sweep, rule.Judge(3, Report(rewritten: 10, failed: 1, conflicts: 2)));

        // Same count, nothing done in between: documents the job cannot read as documents.
        Assert.Equal(CompletionStep.Stuck, rule.Judge(3, Report(rewritten: 10, failed: 1, conflicts: 2)));
    }

    private static EncryptionMigrationProgress Report(long rewritten, long failed = 0, long conflicts = 0) =>
        new(rewritten, rewritten, 0, failed, conflicts, 0, null, null, TimeSpan.Zero);
}
