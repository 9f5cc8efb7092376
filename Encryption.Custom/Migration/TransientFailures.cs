using System.Net;
using Microsoft.Azure.Cosmos;
using Newtonsoft.Json;

namespace Encryption.Custom.Migration;

/// <summary>
/// Which service answers and exceptions a migration retries rather than reports: throttling (429), timeouts (408,
/// and an SDK request timeout), a partition that moved (410), a retry the service asks for (449), an unavailable
/// service (503), a connection that failed or was reset, and a query plan whose answer was cut off (see
/// <see cref="IsDamagedQueryPlan"/>). Everything else is permanent: a document fails only
/// for a reason that another attempt would not change. Retries back off exponentially with jitter, up to
/// <see cref="MaxDelay"/>, and go on until they succeed or the job is stopped.
/// </summary>
internal static class TransientFailures
{
    /// <summary>The longest pause between two attempts.</summary>
    public static readonly TimeSpan MaxDelay = TimeSpan.FromSeconds(5);

    private static readonly TimeSpan s_firstDelay = TimeSpan.FromMilliseconds(100);

    /// <summary>Whether an answer with <paramref name="status"/> is worth sending again.</summary>
    public static bool IsTransient(HttpStatusCode status) => (int)status is 408 or 410 or 429 or 449 or 503;

    /// <summary>Whether <paramref name="exception"/> (thrown by a request, not by the job's own cancellation) is worth retrying.</summary>
    public static bool IsTransient(Exception exception, CancellationToken cancellationToken) => exception switch
    {
        _ when cancellationToken.IsCancellationRequested => false,
        CosmosException cosmos => IsTransient(cosmos.StatusCode),
        HttpRequestException or IOException or TimeoutException => true,
        JsonReaderException reader => IsDamagedQueryPlan(reader),

        // An SDK request timeout surfaces as a cancellation the caller did not ask for.
        OperationCanceledException => true,
        _ => false,
    };

    // Where the SDK (Gateway mode off Windows, where it has no native query-plan code) asks the gateway for a
    // cross-partition query's plan and parses the answer with Newtonsoft.Json, letting the reader's exception out
    // as it is, even from a stream iterator that otherwise answers with a status.
    private const string QueryPlanRequest = "Microsoft.Azure.Cosmos.CosmosQueryClientCore.ExecuteQueryPlanRequestAsync";

    /// <summary>
    /// Whether <paramref name="exception"/> is the SDK failing to parse the gateway's query plan: an answer cut off
    /// or damaged on its way (a truncated body gives "Unterminated string" or "Unexpected end"), which the next
    /// request gets whole. Only that case: a <see cref="JsonReaderException"/> elsewhere can be permanent (a
    /// document nested deeper than a reader's MaxDepth, a value a typed read cannot convert) and retrying it would
    /// never end, while a plan is the gateway's own answer about the query's text, the same text each time, so
    /// one that does not parse was damaged in transit. Known by the SDK's query-plan request on the stack (the
    /// exception's own stack text: no reflection, so this also holds under trimming; without stack trace data the
    /// failure stays permanent, as it was). The endpoint tests inject truncated plans
    /// (TransientFaultTests), so an SDK that renamed the request would be noticed.
    /// </summary>
    internal static bool IsDamagedQueryPlan(JsonReaderException exception) =>
        exception.StackTrace?.Contains(QueryPlanRequest, StringComparison.Ordinal) == true;

    /// <summary>The pause before attempt <paramref name="attempt"/> + 1 (the first retry waits about 100 ms).</summary>
    public static TimeSpan Delay(int attempt)
    {
        double milliseconds = Math.Min(MaxDelay.TotalMilliseconds, s_firstDelay.TotalMilliseconds * Math.Pow(2, Math.Min(attempt, 16)));
        return TimeSpan.FromMilliseconds(milliseconds * (0.5 + (Random.Shared.NextDouble() / 2)));
    }

    /// <summary>Waits the pause before attempt <paramref name="attempt"/> + 1 (<see cref="Delay"/>) on <paramref name="time"/>.</summary>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public static Task PauseAsync(int attempt, TimeProvider time, CancellationToken cancellationToken) =>
        Task.Delay(Delay(attempt), time, cancellationToken);

    /// <summary>Runs <paramref name="operation"/> until it succeeds, retrying transient failures with back-off.</summary>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public static async Task<T> RetryAsync<T>(Func<CancellationToken, Task<T>> operation, TimeProvider time, CancellationToken cancellationToken)
    {
        for (int attempt = 0; ; attempt++)
        {
            try
            {
                return await operation(cancellationToken).ConfigureAwait(false);
            }
            catch (Exception exception) when (IsTransient(exception, cancellationToken))
            {
                await Task.Delay(Delay(attempt), time, cancellationToken).ConfigureAwait(false);
            }
        }
    }

    /// <inheritdoc cref="RetryAsync{T}"/>
    public static Task RetryAsync(Func<CancellationToken, Task> operation, TimeProvider time, CancellationToken cancellationToken) =>
        RetryAsync(
            async token =>
            {
                await operation(token).ConfigureAwait(false);
                return true;
            },
            time,
            cancellationToken);
}
