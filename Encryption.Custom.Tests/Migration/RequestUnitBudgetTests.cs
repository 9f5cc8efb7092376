using Encryption.Custom.Migration;
using Encryption.Custom.Tests.Keys.TestSupport;
using FsCheck;
using FsCheck.Fluent;
using Microsoft.Azure.Cosmos;
using Microsoft.Extensions.Time.Testing;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// The migration's request-unit budget on fake time: when a request may start, how much is banked, how a 429 pauses
/// every request. No real time passes, so the exact instants are checked.
/// </summary>
public sealed class RequestUnitBudgetTests
{
    private readonly FakeTimeProvider _time = new(TestClock.Start);

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public void WaitAsync_WithoutARate_NeverWaits()
    {
        var budget = new RequestUnitBudget(null, _time);
        budget.Charge(1_000_000);

        Assert.True(budget.WaitAsync(Ct).IsCompleted);
        Assert.Equal(1_000_000, budget.Total);
    }

    [Fact]
    public void WaitAsync_AfterOverspending_WaitsExactlyUntilTheBalanceIsRefilled()
    {
        var budget = new RequestUnitBudget(10, _time);
        budget.Charge(25);

        Task wait = budget.WaitAsync(Ct).AsTask();
        _time.Advance(TimeSpan.FromSeconds(2.4));
        Assert.False(wait.IsCompleted);
        _time.Advance(TimeSpan.FromSeconds(0.1));
        Assert.True(wait.IsCompletedSuccessfully);
    }

    [Fact]
    public void Refill_WhileIdle_BanksAtMostOneSecondOfBudget()
    {
        var budget = new RequestUnitBudget(10, _time);
        _time.Advance(TimeSpan.FromMinutes(5));

        // 10 banked, 15 charged: 5 short, half a second at 10 RU/s (five minutes idle bank no more).
        budget.Charge(15);
        Task wait = budget.WaitAsync(Ct).AsTask();
        _time.Advance(TimeSpan.FromSeconds(0.49));
        Assert.False(wait.IsCompleted);
        _time.Advance(TimeSpan.FromSeconds(0.01));
        Assert.True(wait.IsCompletedSuccessfully);
    }

    [Theory]
    [InlineData("300", 300)]
    [InlineData(null, 1000)]
    [InlineData("not a number", 1000)]
    [InlineData("-5", 1000)]
    public void Throttled_PausesEveryRequestForTheRetryAfter_OrOneSecondWithoutAUsableOne(string? retryAfterMilliseconds, int expectedPauseMilliseconds)
    {
        var budget = new RequestUnitBudget(null, _time);
        var headers = new Headers();
        if (retryAfterMilliseconds is not null)
        {
            headers["x-ms-retry-after-ms"] = retryAfterMilliseconds;
        }

        budget.Throttled(headers);
        Task first = budget.WaitAsync(Ct).AsTask();
        Task second = budget.WaitAsync(Ct).AsTask();
        _time.Advance(TimeSpan.FromMilliseconds(expectedPauseMilliseconds - 1));
        Assert.False(first.IsCompleted);
        Assert.False(second.IsCompleted);
        _time.Advance(TimeSpan.FromMilliseconds(1));
        Assert.True(first.IsCompletedSuccessfully);
        Assert.True(second.IsCompletedSuccessfully);
    }

    [Fact]
    public void Throttled_ASecondShorterPause_DoesNotShortenTheFirst()
    {
        var budget = new RequestUnitBudget(null, _time);
        budget.Throttled(Retry(800));
        budget.Throttled(Retry(100));

        Task wait = budget.WaitAsync(Ct).AsTask();
        _time.Advance(TimeSpan.FromMilliseconds(799));
        Assert.False(wait.IsCompleted);
        _time.Advance(TimeSpan.FromMilliseconds(1));
        Assert.True(wait.IsCompletedSuccessfully);
    }

    [Fact]
    public async Task WaitAsync_Cancelled_ThrowsAndChargesNothing()
    {
        var budget = new RequestUnitBudget(10, _time);
        budget.Charge(100);
        using var cancel = new CancellationTokenSource();

        Task wait = budget.WaitAsync(cancel.Token).AsTask();
        await cancel.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => wait);
        Assert.Equal(100, budget.Total);
    }

    [Fact]
    public void Charge_NotPositive_IsIgnored()
    {
        var budget = new RequestUnitBudget(10, _time);
        budget.Charge(0);
        budget.Charge(-3);

        Assert.Equal(0, budget.Total);
        Assert.True(budget.WaitAsync(Ct).IsCompleted);
    }

    [Fact]
    public void Requests_BackToBack_AreNeverChargedFasterThanTheRateNorHeldLongerThanItNeeds()
    {
        // A caller that waits, sends, is charged, and waits again, with generated rates and charges: before each
        // request starts, what the earlier ones were charged is covered by the refill so far (rate x elapsed), and
        // the caller is not held more than a step beyond what the rate requires (plus the one second a bucket holds).
        Arbitrary<(int Rate, int[] Charges)> runs = (
            from rate in Gen.Choose(20, 500)
            from charges in Gen.Choose(0, 200).ArrayOf()
            select (rate, charges)).ToArbitrary();
        Prop.ForAll(runs, run =>
        {
            var time = new FakeTimeProvider(TestClock.Start);
            var budget = new RequestUnitBudget(run.Rate, time);
            TimeSpan step = TimeSpan.FromMilliseconds(10);
            double chargedBefore = 0;
            foreach (int charge in run.Charges)
            {
                Task wait = budget.WaitAsync(CancellationToken.None).AsTask();
                int steps = 0;
                while (!wait.IsCompleted)
                {
                    time.Advance(step);
                    steps++;
                    Assert.True(steps < 1_000_000, "The budget never let the request start.");
                }

                double elapsed = (time.GetUtcNow() - TestClock.Start).TotalSeconds;
                Assert.True(chargedBefore <= (run.Rate * elapsed) + 1e-6, $"{chargedBefore} RU charged before {elapsed} s at {run.Rate} RU/s.");
                Assert.True(elapsed <= (chargedBefore / run.Rate) + (run.Charges.Length * 2 * step.TotalSeconds) + 1e-6, $"Held until {elapsed} s for {chargedBefore} RU at {run.Rate} RU/s.");
                budget.Charge(charge);
                chargedBefore += charge;
            }

            Assert.Equal(chargedBefore, budget.Total);
        }).QuickCheckThrowOnFailure();
    }

    private static Headers Retry(int milliseconds)
    {
        var headers = new Headers();
        headers["x-ms-retry-after-ms"] = milliseconds.ToString(System.Globalization.CultureInfo.InvariantCulture);
        return headers;
    }
}
