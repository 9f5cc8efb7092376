using Encryption.Custom.Migration;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// Whether the job as a whole did any work between two looks, from every instance's activity record (on the service's
/// clock), and which instance sweeps: the input of the completion rule when several instances share the leases.
/// </summary>
public sealed class JobActivityTests
{
    [Fact]
    public void OneInstance_IdleOnlyFromTheSecondLookOn_AndOnlyWhileItsCountsStand()
    {
        var activity = new JobActivity("a");

        Assert.False(activity.Idle([Record("a", work: 5, reports: 1, at: 100)]));
        Assert.True(activity.Idle([Record("a", work: 5, reports: 2, at: 101)]));
        Assert.False(activity.Idle([Record("a", work: 6, reports: 3, at: 102)]));
        Assert.True(activity.Idle([Record("a", work: 6, reports: 4, at: 103)]));
    }

    [Fact]
    public void Alone_ItsOwnCountsAreTheJobs_AndItSweeps()
    {
        // No other instance holds a lease: nothing is written or read, its own work standing still is the job's.
        var activity = new JobActivity("a");

        Assert.False(activity.Idle([activity.Alone(5)]));
        Assert.True(activity.Idle([activity.Alone(5)]));
        Assert.False(activity.Idle([activity.Alone(6)]));
        Assert.True(activity.Sweeps);

        // Another instance takes a lease: its records appear, which is work.
        Assert.False(activity.Idle([Record("a", 6, 1, 100), Record("b", 0, 1, 100)]));
        Assert.True(activity.Idle([Record("a", 6, 2, 101), Record("b", 0, 2, 101)]));
    }

    [Fact]
    public void AnotherInstanceStillRewriting_IsNotIdle_ThoughThisOneDidNothing()
    {
        // The case that made two instances slower than one: "a" had drained its leases, "b" had thousands ahead.
        var activity = new JobActivity("a");

        activity.Idle([Record("a", 100, 1, 100), Record("b", 40, 1, 100)]);
        Assert.False(activity.Idle([Record("a", 100, 2, 101), Record("b", 90, 2, 101)]));
        Assert.False(activity.Idle([Record("a", 100, 3, 102), Record("b", 140, 3, 102)]));
        Assert.True(activity.Idle([Record("a", 100, 4, 103), Record("b", 140, 4, 103)]));
    }

    [Fact]
    public void AnotherInstanceNotReportedSinceTheLastLook_SaysNothingYet_UntilItCountsAsGone()
    {
        var activity = new JobActivity("a");

        activity.Idle([Record("a", 10, 1, 100), Record("b", 7, 1, 100)]);

        // "b" wrote no record since the last look: its silence may be a longer interval, not idleness.
        Assert.False(activity.Idle([Record("a", 10, 2, 101), Record("b", 7, 1, 100)]));
        Assert.False(activity.Idle([Record("a", 10, 3, 105), Record("b", 7, 1, 100)]));

        // Past its liveness (at least 10 s on the service's clock) it no longer holds the job back.
        Assert.True(activity.Idle([Record("a", 10, 4, 111), Record("b", 7, 1, 100)]));
    }

    [Fact]
    public void ALeaseOwnerWithoutALiveRecord_HoldsTheJob_AndIsNamed()
    {
        // "b" holds leases but wrote no record lately (killed, or holding every lease and between heartbeats): its
        // documents may be in its hands, so the job is not idle, and the run can say for whom it waits.
        var activity = new JobActivity("a");

        activity.Idle([Record("a", 3, 1, 100)], leaseOwners: ["b"]);
        Assert.False(activity.Idle([Record("a", 3, 2, 101)], leaseOwners: ["b"]));
        Assert.Equal(["b"], activity.SilentOwners);

        // Its heartbeat comes: live; unchanged at the next look, the job is idle.
        Assert.False(activity.Idle([Record("a", 3, 3, 102), Record("b", 50, 1, 102)], leaseOwners: ["b"]));
        Assert.Empty(activity.SilentOwners);
        Assert.True(activity.Idle([Record("a", 3, 4, 103), Record("b", 50, 2, 103)], leaseOwners: ["b"]));

        // Gone for good (no record past its liveness) with its lease passed to this instance: not waited for.
        Assert.False(activity.Idle([Record("a", 3, 5, 110)], leaseOwners: ["b"]));
        Assert.Equal(["b"], activity.SilentOwners);
        Assert.True(activity.Idle([Record("a", 3, 6, 120), Record("b", 50, 2, 103)], leaseOwners: []));
    }

    [Fact]
    public void Liveness_IsThreeIntervals_NeverUnderTenSeconds()
    {
        Assert.Equal(10, JobActivity.LivenessSeconds(0.3));
        Assert.Equal(90, JobActivity.LivenessSeconds(30));
    }

    [Fact]
    public void AnInstanceAppearing_IsWork()
    {
        var activity = new JobActivity("a");

        activity.Idle([Record("a", 10, 1, 100)]);
        Assert.False(activity.Idle([Record("a", 10, 2, 101), Record("c", 0, 1, 101)]));
        Assert.False(activity.Idle([Record("a", 10, 3, 102), Record("c", 0, 1, 101)]));
        Assert.True(activity.Idle([Record("a", 10, 4, 103), Record("c", 0, 2, 103)]));
    }

    [Fact]
    public void WithoutItsOwnRecord_NothingIsKnown_NotEvenAtTheNextLook()
    {
        var activity = new JobActivity("a");

        activity.Idle([Record("a", 10, 1, 100)]);
        Assert.False(activity.Idle([Record("b", 10, 1, 100)]));
        Assert.False(activity.Idle([Record("a", 10, 2, 101)]));
        Assert.True(activity.Idle([Record("a", 10, 3, 102)]));

        activity.Unknown();
        Assert.False(activity.Idle([Record("a", 10, 4, 103)]));
    }

    [Fact]
    public void Sweeps_TheFirstLiveInstanceByOrdinalName()
    {
        var b = new JobActivity("b");
        var upperA = new JobActivity("A");
        Assert.True(b.Sweeps); // before any look: alone as far as it knows

        b.Idle([Record("b", 0, 1, 100), Record("a", 0, 1, 100), Record("A", 0, 1, 100)]);
        upperA.Idle([Record("b", 0, 1, 100), Record("a", 0, 1, 100), Record("A", 0, 1, 100)]);
        Assert.False(b.Sweeps);
        Assert.True(upperA.Sweeps);

        // "A" and "a" gone (no record for longer than their liveness): "b" sweeps.
        b.Idle([Record("b", 0, 2, 120), Record("a", 0, 1, 100), Record("A", 0, 1, 100)]);
        Assert.True(b.Sweeps);
    }

    private static InstanceActivity Record(string instance, long work, long reports, long at) => new(instance, work, reports, at, IntervalSeconds: 0.3);
}
