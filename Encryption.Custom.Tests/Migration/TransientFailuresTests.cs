using System.Net;
using Encryption.Custom.Migration;
using Encryption.Custom.Tests.Keys.TestSupport;
using Microsoft.Azure.Cosmos;
using Microsoft.Extensions.Time.Testing;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// The migration's retry rule on fake time: which failures are retried, how long each pause is (exponential from about
/// 100 ms, with jitter, capped at <see cref="TransientFailures.MaxDelay"/>), and that cancellation ends the retries.
/// </summary>
public sealed class TransientFailuresTests
{
    private static readonly TimeSpan s_step = TimeSpan.FromMilliseconds(1);

    private readonly FakeTimeProvider _time = new(TestClock.Start);

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Theory]
    [InlineData(HttpStatusCode.RequestTimeout, true)]
    [InlineData(HttpStatusCode.Gone, true)]
    [InlineData(HttpStatusCode.TooManyRequests, true)]
    [InlineData((HttpStatusCode)449, true)]
    [InlineData(HttpStatusCode.ServiceUnavailable, true)]
    [InlineData(HttpStatusCode.NotFound, false)]
    [InlineData(HttpStatusCode.Forbidden, false)]
    [InlineData(HttpStatusCode.BadRequest, false)]
    [InlineData(HttpStatusCode.PreconditionFailed, false)]
    [InlineData(HttpStatusCode.InternalServerError, false)]
    public void IsTransient_ByStatus(HttpStatusCode status, bool transient)
    {
        Assert.Equal(transient, TransientFailures.IsTransient(status));
        Assert.Equal(transient, TransientFailures.IsTransient(Service(status), CancellationToken.None));
    }

    [Fact]
    public void IsTransient_ConnectionFailuresAndSdkTimeouts_AreRetried_UnlessTheCallerCancelled()
    {
        Assert.True(TransientFailures.IsTransient(new HttpRequestException("reset"), CancellationToken.None));
        Assert.True(TransientFailures.IsTransient(new IOException("reset"), CancellationToken.None));
        Assert.True(TransientFailures.IsTransient(new TimeoutException(), CancellationToken.None));
        Assert.True(TransientFailures.IsTransient(new OperationCanceledException(), CancellationToken.None));
        Assert.False(TransientFailures.IsTransient(new InvalidOperationException(), CancellationToken.None));
        Assert.False(TransientFailures.IsTransient(new EncryptionException(EncryptionErrorKind.KeyUnavailable, "no key"), CancellationToken.None));

        using var cancelled = new CancellationTokenSource();
        cancelled.Cancel();
        Assert.False(TransientFailures.IsTransient(Service(HttpStatusCode.ServiceUnavailable), cancelled.Token));
        Assert.False(TransientFailures.IsTransient(new OperationCanceledException(cancelled.Token), cancelled.Token));
    }

    // A reader exception is retried only when it comes out of the SDK's query-plan request (a plan cut off in
    // transit; the endpoint tests inject one, TransientFaultTests). The same type thrown while reading anything else
    // can be permanent (here a document nested deeper than the reader's MaxDepth, which fails the same way every time).
    [Fact]
    public void IsTransient_JsonReaderException_OnlyFromTheSdksQueryPlanRequest()
    {
        Newtonsoft.Json.JsonReaderException tooDeep = Assert.Throws<Newtonsoft.Json.JsonReaderException>(
            () => Newtonsoft.Json.Linq.JToken.ReadFrom(new Newtonsoft.Json.JsonTextReader(new StringReader("[[[[[1]]]]]")) { MaxDepth = 2 }));
        Newtonsoft.Json.JsonReaderException truncated = Assert.Throws<Newtonsoft.Json.JsonReaderException>(
            () => Newtonsoft.Json.Linq.JToken.Parse("{\"queryInfo\":{\"distinctType\":\"No"));

        Assert.False(TransientFailures.IsTransient(tooDeep, CancellationToken.None));
        Assert.False(TransientFailures.IsTransient(truncated, CancellationToken.None));
        Assert.False(TransientFailures.IsTransient(new Newtonsoft.Json.JsonReaderException("no stack trace"), CancellationToken.None));
    }

    [Fact]
    public void Delay_GrowsExponentiallyWithJitter_UpToTheCap()
    {
        for (int attempt = 0; attempt < 40; attempt++)
        {
            double nominal = Math.Min(TransientFailures.MaxDelay.TotalMilliseconds, 100 * Math.Pow(2, Math.Min(attempt, 16)));
            for (int sample = 0; sample < 50; sample++)
            {
                double delay = TransientFailures.Delay(attempt).TotalMilliseconds;
                Assert.InRange(delay, nominal / 2, nominal);
            }
        }
    }

    [Fact]
    public async Task RetryAsync_TransientFailures_RetriesAfterEachPauseOnTheGivenClockUntilItSucceeds()
    {
        const int Failures = 9;
        var attempts = new List<DateTimeOffset>();
        Task<int> retried = TransientFailures.RetryAsync(
            _ =>
            {
                attempts.Add(_time.GetUtcNow());
                return attempts.Count <= Failures ? throw Service(HttpStatusCode.ServiceUnavailable) : Task.FromResult(42);
            },
            _time,
            Ct);

        await RunClockUntilAsync(retried, TimeSpan.FromMinutes(2));

        Assert.Equal(42, await retried);
        Assert.Equal(Failures + 1, attempts.Count);
        for (int i = 1; i < attempts.Count; i++)
        {
            // Each pause as Delay(attempt) draws it, give or take the clock's 1 ms steps.
            double nominal = Math.Min(TransientFailures.MaxDelay.TotalMilliseconds, 100 * Math.Pow(2, i - 1));
            Assert.InRange((attempts[i] - attempts[i - 1]).TotalMilliseconds, Math.Floor(nominal / 2), nominal + 1);
        }
    }

    [Fact]
    public async Task RetryAsync_APermanentFailure_IsThrownAtOnce()
    {
        int attempts = 0;
        Task retried = TransientFailures.RetryAsync(
            _ =>
            {
                attempts++;
                throw Service(HttpStatusCode.Forbidden);
            },
            _time,
            Ct);

        CosmosException thrown = await Assert.ThrowsAsync<CosmosException>(() => retried);
        Assert.Equal(HttpStatusCode.Forbidden, thrown.StatusCode);
        Assert.Equal(1, attempts);
    }

    [Fact]
    public async Task RetryAsync_CancelledDuringAPause_StopsRetrying()
    {
        int attempts = 0;
        using var cancel = new CancellationTokenSource();
        Task retried = TransientFailures.RetryAsync(
            _ =>
            {
                attempts++;
                throw Service(HttpStatusCode.TooManyRequests);
            },
            _time,
            cancel.Token);

        await cancel.CancelAsync();
        _time.Advance(TimeSpan.FromMinutes(1));

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => retried);
        Assert.Equal(1, attempts);
    }

    private static CosmosException Service(HttpStatusCode status) => new("refused", status, 0, "activity", 1);

    // Moves the fake clock in 1 ms steps until the task ends (no real time passes but the continuations').
    private async Task RunClockUntilAsync(Task task, TimeSpan bound)
    {
        TimeSpan advanced = TimeSpan.Zero;
        while (!task.IsCompleted && advanced < bound)
        {
            _time.Advance(s_step);
            advanced += s_step;
            await Task.Yield();
        }

        Assert.True(task.IsCompleted, $"Not done after {bound} of fake time.");
    }
}
