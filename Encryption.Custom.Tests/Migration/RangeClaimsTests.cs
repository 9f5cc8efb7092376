using Encryption.Custom.Migration;
using Encryption.Custom.Tests.Keys.TestSupport;
using Microsoft.Extensions.Time.Testing;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// Which range of a shared survey an instance claims, waits for or merges, on fake time: a claim another instance
/// renews is respected; one left unchanged for its whole lifetime (its owner stopped or died) is taken over; records
/// that cannot be trusted are scanned again.
/// </summary>
public sealed class RangeClaimsTests
{
    private static readonly TimeSpan s_lifetime = TimeSpan.FromSeconds(30);
    private readonly FakeTimeProvider _time = new(TestClock.Start);

    private static RangeRecord Claimed(int index, string etag, string owner = "other") => new(index, etag, RangeRecordState.Claimed, owner);

    private static RangeRecord Done(int index) => new(index, "done-" + index, RangeRecordState.Done, "other");

    [Fact]
    public void NoRecords_ClaimsARange_TheNextLookClaimsAnother()
    {
        var claims = new RangeClaims("a", s_lifetime, _time);

        RangeChoice first = claims.Next([], rangeCount: 3);

        Assert.Equal(RangeChoiceKind.Claim, first.Kind);
        Assert.Equal(RangeRecordState.Missing, first.Range.State);
        RangeChoice second = claims.Next([Claimed(first.Range.Index, "e1", owner: "b")], rangeCount: 3);
        Assert.Equal(RangeChoiceKind.Claim, second.Kind);
        Assert.NotEqual(first.Range.Index, second.Range.Index);
    }

    [Fact]
    public void EveryRangeDone_Merges()
    {
        var claims = new RangeClaims("a", s_lifetime, _time);

        Assert.Equal(RangeChoiceKind.Merge, claims.Next([Done(0), Done(1), Done(2)], rangeCount: 3).Kind);
    }

    [Fact]
    public void ARecordOfAnIndexOutsideTheRound_CountsForNothing()
    {
        var claims = new RangeClaims("a", s_lifetime, _time);

        RangeChoice choice = claims.Next([Done(0), Done(7)], rangeCount: 2);

        Assert.Equal(RangeChoiceKind.Claim, choice.Kind);
        Assert.Equal(1, choice.Range.Index);
    }

    [Fact]
    public void AClaimRenewedWithinItsLifetime_IsWaitedFor_OneLeftUnchangedForItsLifetime_IsTakenOver()
    {
        var claims = new RangeClaims("a", s_lifetime, _time);

        Assert.Equal(RangeChoiceKind.Wait, claims.Next([Done(0), Claimed(1, "e1")], rangeCount: 2).Kind);
        _time.Advance(TimeSpan.FromSeconds(20));
        Assert.Equal(RangeChoiceKind.Wait, claims.Next([Done(0), Claimed(1, "e1")], rangeCount: 2).Kind);

        // Renewed (another ETag): its lifetime starts again from this look.
        _time.Advance(TimeSpan.FromSeconds(20));
        Assert.Equal(RangeChoiceKind.Wait, claims.Next([Done(0), Claimed(1, "e2")], rangeCount: 2).Kind);
        _time.Advance(TimeSpan.FromSeconds(29));
        Assert.Equal(RangeChoiceKind.Wait, claims.Next([Done(0), Claimed(1, "e2")], rangeCount: 2).Kind);

        // Not renewed for the whole lifetime: its owner stopped; taken over on the ETag seen.
        _time.Advance(TimeSpan.FromSeconds(1));
        RangeChoice takeOver = claims.Next([Done(0), Claimed(1, "e2")], rangeCount: 2);
        Assert.Equal(RangeChoiceKind.Claim, takeOver.Kind);
        Assert.Equal(1, takeOver.Range.Index);
        Assert.Equal("e2", takeOver.Range.ETag);
    }

    [Fact]
    public void AClaimFirstSeenLate_GetsAWholeLifetimeFromThatLook()
    {
        // The claim may be old on its owner's clock: only what this instance saw, on its own clock, counts.
        var claims = new RangeClaims("a", s_lifetime, _time);
        _time.Advance(TimeSpan.FromHours(1));

        Assert.Equal(RangeChoiceKind.Wait, claims.Next([Claimed(0, "e1")], rangeCount: 1).Kind);
        _time.Advance(s_lifetime - TimeSpan.FromSeconds(1));
        Assert.Equal(RangeChoiceKind.Wait, claims.Next([Claimed(0, "e1")], rangeCount: 1).Kind);
    }

    [Fact]
    public void AnUntrustedRecord_OrThisInstancesOwnOldClaim_IsClaimedAtOnce()
    {
        var claims = new RangeClaims("a", s_lifetime, _time);

        RangeChoice untrusted = claims.Next([Done(0), new RangeRecord(1, "e1", RangeRecordState.Untrusted, "b")], rangeCount: 2);
        RangeChoice own = claims.Next([Done(0), Claimed(1, "e1", owner: "a")], rangeCount: 2);

        Assert.Equal((RangeChoiceKind.Claim, 1, "e1"), (untrusted.Kind, untrusted.Range.Index, untrusted.Range.ETag));
        Assert.Equal((RangeChoiceKind.Claim, 1, "e1"), (own.Kind, own.Range.Index, own.Range.ETag));
    }

    [Fact]
    public void RangesThisInstanceIsScanning_AreNotClaimedAgain_TheOthersAre_AndWhenNoneIsLeftItWaits()
    {
        // Its own claims read back while it scans them (several at once): not an earlier run's left-over claim.
        var claims = new RangeClaims("a", s_lifetime, _time);
        RangeRecord[] records = [Claimed(0, "e0", owner: "a"), Claimed(1, "e1", owner: "a")];

        RangeChoice next = claims.Next(records, rangeCount: 3, scanning: [0, 1]);

        Assert.Equal((RangeChoiceKind.Claim, 2), (next.Kind, next.Range.Index));
        Assert.Equal(RangeChoiceKind.Wait, claims.Next([.. records, Claimed(2, "e2", owner: "a")], rangeCount: 3, scanning: [0, 1, 2]).Kind);
    }

    [Fact]
    public void InstancesStartingTogether_BeginTheirSearchAtDifferentRanges()
    {
        // Not a guarantee for any two names, but the search start spreads: over a few names, more than one first choice.
        var firsts = new HashSet<int>();
        foreach (string name in new[] { "a", "b", "c", "d", "e", "f" })
        {
            firsts.Add(new RangeClaims(name, s_lifetime, _time).Next([], rangeCount: 8).Range.Index);
        }

        Assert.True(firsts.Count > 1, "every instance would race for the same first range");
    }
}
