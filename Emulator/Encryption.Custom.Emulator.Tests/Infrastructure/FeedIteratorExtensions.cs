namespace Encryption.Custom.Emulator.Tests.Infrastructure;

/// <summary>Reading whole feeds (queries, change feed) in tests.</summary>
public static class FeedIteratorExtensions
{
    // A runaway feed (a server that never says "no more") fails the test instead of hanging it.
    private const int MaxPages = 1_000;

    /// <summary>Reads a query to its end; returns its pages in order.</summary>
    public static async Task<IReadOnlyList<FeedResponse<T>>> ReadAllPagesAsync<T>(
        this FeedIterator<T> iterator, CancellationToken cancellationToken)
    {
        var pages = new List<FeedResponse<T>>();
        while (iterator.HasMoreResults)
        {
            Assert.True(pages.Count < MaxPages, "The query did not end.");
            pages.Add(await iterator.ReadNextAsync(cancellationToken));
        }

        return pages;
    }

    /// <summary>Reads a query to its end; returns all its items.</summary>
    public static async Task<List<T>> ReadAllAsync<T>(this FeedIterator<T> iterator, CancellationToken cancellationToken) =>
        [.. (await iterator.ReadAllPagesAsync(cancellationToken)).SelectMany(page => page)];

    /// <summary>
    /// Reads a change feed until it reports no more changes (304 Not Modified); returns the pages that had
    /// changes and the continuation token to resume from.
    /// </summary>
    public static async Task<(IReadOnlyList<FeedResponse<T>> Pages, string Continuation)> ReadChangesAsync<T>(
        this FeedIterator<T> iterator, CancellationToken cancellationToken)
    {
        var pages = new List<FeedResponse<T>>();
        while (true)
        {
            Assert.True(pages.Count < MaxPages, "The change feed never reported 'not modified'.");
            FeedResponse<T> page = await iterator.ReadNextAsync(cancellationToken);
            if (page.StatusCode == HttpStatusCode.NotModified)
            {
                return (pages, page.ContinuationToken);
            }

            pages.Add(page);
        }
    }
}
