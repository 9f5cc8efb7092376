using System.Net;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Migration;

/// <summary>
/// The one request loop of the migration jobs, for point reads (a document's current version after a 412 or a
/// verification, a copy's lookup in the target), query pages (<see cref="ResumableQueryIterator.ReadNextSettledAsync"/>)
/// and the writes (the in-place replace, the copy's upsert; each may be sent again: see their callers):
/// waits on the budget before each attempt, charges every answer to it, pauses every request after a 429 and
/// retries the transient failures (<see cref="TransientFailures"/>) with back-off, so each caller is left with an
/// answer that is settled: found, not found, or refused for good.
/// </summary>
internal static class SettledRequests
{
    /// <summary>Sends until the answer is neither throttled nor transient.</summary>
    /// <param name="send">Sends one request (through an encrypting container it may throw <see cref="EncryptionException"/>, which is let out).</param>
    /// <param name="budget">The budget to wait on, charge and pause, or <see langword="null"/> (a 429 is then retried as any transient failure).</param>
    /// <param name="charged">Told every attempt's request charge (the status query's own total), or <see langword="null"/>.</param>
    /// <param name="time">The clock of the pauses.</param>
    /// <param name="cancellationToken">Cancels the wait and the read.</param>
    /// <param name="retryThrown">
    /// Whether a transient exception is retried by calling <paramref name="send"/> again: true for a point read; false
    /// for a query page, whose SDK iterator may have moved past what it threw on (<see cref="ResumableQueryIterator"/>).
    /// </param>
    /// <returns>The answer, to be disposed by the caller: a success, 404, or a permanent refusal.</returns>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public static async Task<ResponseMessage> SendAsync(
        Func<CancellationToken, Task<ResponseMessage>> send,
        RequestUnitBudget? budget,
        Action<double>? charged,
        TimeProvider time,
        CancellationToken cancellationToken,
        bool retryThrown = true)
    {
        int transientAttempts = 0;
        while (true)
        {
            if (budget is not null)
            {
                await budget.WaitAsync(cancellationToken).ConfigureAwait(false);
            }

            ResponseMessage response;
            try
            {
                response = await send(cancellationToken).ConfigureAwait(false);
            }
            catch (Exception exception) when (retryThrown && TransientFailures.IsTransient(exception, cancellationToken))
            {
                await TransientFailures.PauseAsync(transientAttempts++, time, cancellationToken).ConfigureAwait(false);
                continue;
            }

            double charge = response.Headers.RequestCharge;
            budget?.Charge(charge);
            charged?.Invoke(charge);
            if (response.StatusCode == HttpStatusCode.TooManyRequests && budget is not null)
            {
                budget.Throttled(response.Headers);
                response.Dispose();
                continue;
            }

            if (TransientFailures.IsTransient(response.StatusCode))
            {
                response.Dispose();
                await TransientFailures.PauseAsync(transientAttempts++, time, cancellationToken).ConfigureAwait(false);
                continue;
            }

            return response;
        }
    }

    /// <summary>
    /// The version of <paramref name="stale"/> stored now in <paramref name="container"/>, read by its stored id and
    /// partition key under <paramref name="budget"/>.
    /// </summary>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public static async Task<CurrentVersion> ReadCurrentAsync(
        Container container,
        StoredDocument stale,
        IReadOnlyList<string> partitionKeyPaths,
        RequestUnitBudget budget,
        TimeProvider time,
        CancellationToken cancellationToken)
    {
        using ResponseMessage response = await SendAsync(
            token => container.ReadItemStreamAsync(stale.Id, stale.PartitionKey, cancellationToken: token),
            budget,
            null,
            time,
            cancellationToken).ConfigureAwait(false);
        switch (response.StatusCode)
        {
            case HttpStatusCode.OK:
                using (var copy = new MemoryStream())
                {
                    await response.Content.CopyToAsync(copy, cancellationToken).ConfigureAwait(false);
                    return new CurrentVersion(HttpStatusCode.OK, null, StoredDocument.Read(copy.ToArray(), partitionKeyPaths, response.Headers.ETag));
                }

            default:
                return new CurrentVersion(response.StatusCode, response.Headers["x-ms-substatus"], null);
        }
    }
}

/// <summary>
/// A document's version as stored now: <see cref="Document"/> when found (<see langword="null"/> also when found
/// without a string id), <see cref="Deleted"/> after a 404, else a refusal by <see cref="Status"/> and <see cref="SubStatus"/>.
/// </summary>
internal readonly record struct CurrentVersion(HttpStatusCode Status, string? SubStatus, StoredDocument? Document)
{
    public bool Deleted => Status == HttpStatusCode.NotFound;

    public bool Refused => Status is not HttpStatusCode.OK and not HttpStatusCode.NotFound;
}
