using Encryption.Custom.Migration;
using Encryption.Custom.Tests.Keys.TestSupport;
using Microsoft.Extensions.Time.Testing;

namespace Encryption.Custom.Tests.Migration;

/// <summary>A job's counts on fake time: the elapsed time and the estimate of what is left come from the job's clock.</summary>
public sealed class MigrationCountersTests
{
    private readonly FakeTimeProvider _time = new(TestClock.Start);

    [Fact]
    public void Snapshot_ElapsedAndRemaining_AreMeasuredOnTheJobsClock()
    {
        var counters = new MigrationCounters(_time);
        counters.AddSeen(300);
        counters.Rewritten();
        counters.Skipped();
        counters.Conflict();
        _time.Advance(TimeSpan.FromMinutes(1));

        // 300 seen in 60 s is 5 a second: a lag of 600 is two minutes away.
        EncryptionMigrationProgress progress = counters.Snapshot(requestUnits: 12.5, lag: 600);

        Assert.Equal(TimeSpan.FromMinutes(1), progress.Elapsed);
        Assert.Equal(TimeSpan.FromMinutes(2), progress.EstimatedTimeRemaining);
        Assert.Equal((300L, 1L, 1L, 1L, 0L, 12.5, 600L), (progress.DocumentsSeen, progress.DocumentsRewritten, progress.DocumentsSkipped, progress.Conflicts, progress.DocumentsFailed, progress.RequestUnits, progress.EstimatedLag));
    }

    [Fact]
    public void Snapshot_BeforeAnythingIsSeenOrWithoutALag_HasNoEstimate()
    {
        var counters = new MigrationCounters(_time);
        _time.Advance(TimeSpan.FromSeconds(10));

        Assert.Null(counters.Snapshot(0, lag: 50).EstimatedTimeRemaining);
        counters.AddSeen(1);
        Assert.Null(counters.Snapshot(0, lag: null).EstimatedTimeRemaining);
        Assert.Equal(TimeSpan.Zero, counters.Snapshot(0, lag: 0).EstimatedTimeRemaining);
    }

    [Fact]
    public void Failed_TheSameDocumentTwice_KeepsItsPlaceWithTheLatestReason()
    {
        var counters = new MigrationCounters(_time);
        counters.Failed(new EncryptionMigrationFailure("a", "[\"p\"]", EncryptionErrorKind.KeyUnavailable, "first"));
        counters.Failed(new EncryptionMigrationFailure("b", "[\"p\"]", null, "other"));
        counters.Failed(new EncryptionMigrationFailure("a", "[\"p\"]", EncryptionErrorKind.InvalidCipherText, "second"));

        Assert.Equal(["a:second", "b:other"], counters.Failures().Select(f => f.Id + ":" + f.Reason));
        Assert.True(counters.HasFailed("a", "[\"p\"]"));
        Assert.False(counters.HasFailed("a", "[\"q\"]"));
        Assert.Equal(2, counters.Snapshot(0, null).DocumentsFailed);
    }
}
