namespace Encryption.Custom.Tests.Keys.TestSupport;

/// <summary>
/// A clock that moves only when a test calls <see cref="Advance"/>; timers fire synchronously inside it. Time-to-live
/// tests use it instead of sleeping.
/// </summary>
internal sealed class ManualTimeProvider : TimeProvider
{
    private readonly Lock _gate = new();
    private readonly List<ManualTimer> _timers = [];
    private DateTimeOffset _utcNow = new(2026, 11, 22, 8, 0, 0, TimeSpan.Zero);
    private long _timestamp = 1_000_000;

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public override DateTimeOffset GetUtcNow()
    {
        lock (_gate)
        {
            return _utcNow;
        }
    }

    public override long GetTimestamp() => Interlocked.Read(ref _timestamp);

    /// <summary>Moves the clock forward and runs every timer that falls due, in order.</summary>
    public void Advance(TimeSpan delta)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(delta, TimeSpan.Zero);
        long target = Interlocked.Read(ref _timestamp) + delta.Ticks;
        while (true)
        {
            ManualTimer? due;
            lock (_gate)
            {
                due = _timers.Where(timer => timer.DueAt <= target).MinBy(timer => timer.DueAt);
                if (due is null)
                {
                    _utcNow += TimeSpan.FromTicks(target - _timestamp);
                    Interlocked.Exchange(ref _timestamp, target);
                    return;
                }

                _utcNow += TimeSpan.FromTicks(Math.Max(0, due.DueAt - _timestamp));
                Interlocked.Exchange(ref _timestamp, Math.Max(_timestamp, due.DueAt));
                due.Reschedule();
            }

            due.Fire();
        }
    }

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        var timer = new ManualTimer(this, callback, state);
        timer.Change(dueTime, period);
        return timer;
    }

    private sealed class ManualTimer(ManualTimeProvider owner, TimerCallback callback, object? state) : ITimer
    {
        private TimeSpan _period = Timeout.InfiniteTimeSpan;

        public long DueAt { get; private set; }

        public bool Change(TimeSpan dueTime, TimeSpan period)
        {
            lock (owner._gate)
            {
                owner._timers.Remove(this);
                _period = period;
                if (dueTime != Timeout.InfiniteTimeSpan)
                {
                    DueAt = owner.GetTimestamp() + dueTime.Ticks;
                    owner._timers.Add(this);
                }
            }

            return true;
        }

        /// <summary>Called under the owner's lock when the timer fires: schedules the next period or retires it.</summary>
        public void Reschedule()
        {
            owner._timers.Remove(this);
            if (_period != Timeout.InfiniteTimeSpan && _period > TimeSpan.Zero)
            {
                DueAt += _period.Ticks;
                owner._timers.Add(this);
            }
        }

        public void Fire() => callback(state);

        public void Dispose()
        {
            lock (owner._gate)
            {
                owner._timers.Remove(this);
            }
        }

        public ValueTask DisposeAsync()
        {
            Dispose();
            return default;
        }
    }
}
