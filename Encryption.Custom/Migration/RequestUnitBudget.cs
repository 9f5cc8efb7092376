using System.Globalization;
using Encryption.Custom.Diagnostics;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Migration;

/// <summary>
/// A job instance's throughput budget: a token bucket in request units, refilled at the configured rate (at most
/// one second's worth banked) and drained by the request charge of every response, so the rate is enforced from
/// what the service actually charged. A request may start while the balance is not negative; a 429 pauses every
/// request until its retry-after has passed. Without a rate only the pauses and the total apply. Thread-safe.
/// </summary>
internal sealed class RequestUnitBudget
{
    private static readonly TimeSpan s_defaultRetryAfter = TimeSpan.FromSeconds(1);
    private readonly double? _rate;
    private readonly TimeProvider _time;
    private readonly Lock _lock = new();
    private double _balance;
    private long _refilledAt;
    private long _pausedUntil;
    private double _total;

    /// <param name="requestUnitsPerSecond">The refill rate, or <see langword="null"/> for no budget.</param>
    /// <param name="time">The clock the bucket refills and waits by (the migration options' <see cref="TimeProvider"/>).</param>
    public RequestUnitBudget(double? requestUnitsPerSecond, TimeProvider? time = null)
    {
        _rate = requestUnitsPerSecond;
        _time = time ?? TimeProvider.System;
        _refilledAt = _time.GetTimestamp();
    }

    /// <summary>Request units charged so far.</summary>
    public double Total
    {
        get
        {
            lock (_lock)
            {
                return _total;
            }
        }
    }

    /// <summary>Waits until a request may be sent.</summary>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public async ValueTask WaitAsync(CancellationToken cancellationToken)
    {
        while (true)
        {
            TimeSpan delay;
            lock (_lock)
            {
                long now = _time.GetTimestamp();
                Refill(now);
                if (now < _pausedUntil)
                {
                    delay = _time.GetElapsedTime(now, _pausedUntil);
                }
                else if (_rate is not { } rate || _balance >= 0)
                {
                    return;
                }
                else
                {
                    delay = TimeSpan.FromSeconds(-_balance / rate);
                }
            }

            await Task.Delay(delay < TimeSpan.FromMilliseconds(1) ? TimeSpan.FromMilliseconds(1) : delay, _time, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>Counts a response's request charge.</summary>
    public void Charge(double requestUnits)
    {
        if (requestUnits <= 0)
        {
            return;
        }

        lock (_lock)
        {
            Refill(_time.GetTimestamp());
            _balance -= requestUnits;
            _total += requestUnits;
        }

        if (EncryptionTelemetry.MigrationRequestUnits.Enabled)
        {
            EncryptionTelemetry.MigrationRequestUnits.Add(requestUnits);
        }
    }

    /// <summary>The service answered 429: no request starts before its retry-after (<c>x-ms-retry-after-ms</c>, else 1 s) has passed.</summary>
    public void Throttled(Headers headers)
    {
        TimeSpan wait = double.TryParse(headers["x-ms-retry-after-ms"], NumberStyles.Float, CultureInfo.InvariantCulture, out double milliseconds) && milliseconds > 0
            ? TimeSpan.FromMilliseconds(milliseconds)
            : s_defaultRetryAfter;
        lock (_lock)
        {
            long until = _time.GetTimestamp() + (long)(wait.TotalSeconds * _time.TimestampFrequency);
            _pausedUntil = Math.Max(_pausedUntil, until);
        }
    }

    private void Refill(long now)
    {
        if (_rate is { } rate)
        {
            _balance = Math.Min(rate, _balance + (_time.GetElapsedTime(_refilledAt, now).TotalSeconds * rate));
        }

        _refilledAt = now;
    }
}
