using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Migration;

/// <summary>
/// The pages of a query over a whole container, where a page that failed transiently is asked for again from the
/// continuation of the last page that succeeded, by a new iterator. The SDK's cross-partition iterator is not a
/// safe place to retry in: after a failed page its own state may already have moved past ranges it never
/// returned (the status scan counted 34 of 60 documents over three ranges with faults injected into its
/// queries), while the continuation of a page the caller received says exactly what was handed over.
/// </summary>
internal sealed class ResumableQueryIterator(Func<string?, FeedIterator> create) : IDisposable
{
    private FeedIterator _iterator = create(null);
    private string? _continuation;

    /// <summary>Whether there are pages left (always after a transient failure: the failed page is asked for again).</summary>
    public bool HasMoreResults => _iterator.HasMoreResults;

    /// <summary>Over <paramref name="container"/> with <paramref name="query"/>, as stream pages.</summary>
    public static ResumableQueryIterator Over(Container container, string query) =>
        new(continuation => container.GetItemQueryStreamIterator(query, continuation));

    /// <summary>Over <paramref name="range"/> of <paramref name="container"/> (all of it when null) with <paramref name="query"/>, as stream pages.</summary>
    public static ResumableQueryIterator Over(Container container, string query, FeedRange? range) =>
        range is null ? Over(container, query) : new(continuation => container.GetItemQueryStreamIterator(range, new QueryDefinition(query), continuation));

    /// <summary>
    /// The next page. After an answer that <see cref="TransientFailures.IsTransient(System.Net.HttpStatusCode)"/>, the
    /// next call asks again for the page after the last one that succeeded.
    /// </summary>
    public async Task<ResponseMessage> ReadNextAsync(CancellationToken cancellationToken)
    {
        ResponseMessage response = await _iterator.ReadNextAsync(cancellationToken).ConfigureAwait(false);
        if (response.IsSuccessStatusCode)
        {
            _continuation = response.ContinuationToken;
        }
        else if (TransientFailures.IsTransient(response.StatusCode))
        {
            _iterator.Dispose();
            _iterator = create(_continuation);
        }

        return response;
    }

    /// <summary>
    /// The next page, asked for again (after the budget's pause or a back-off) until the answer is a success or a
    /// permanent refusal (<see cref="SettledRequests"/>); an exception is let out, as the SDK's iterator cannot be retried in.
    /// </summary>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public Task<ResponseMessage> ReadNextSettledAsync(RequestUnitBudget? budget, Action<double>? charged, TimeProvider time, CancellationToken cancellationToken) =>
        SettledRequests.SendAsync(ReadNextAsync, budget, charged, time, cancellationToken, retryThrown: false);

    /// <inheritdoc/>
    public void Dispose() => _iterator.Dispose();
}
