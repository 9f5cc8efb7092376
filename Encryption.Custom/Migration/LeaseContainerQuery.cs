using System.Text.Json;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Migration;

/// <summary>
/// A query over the job's lease container read as streams (the lease container's client may have any serializer),
/// page by page, each page charged to the job's budget: the shape of every read of the job's own records (activity,
/// survey and verification ranges, superseded rounds).
/// </summary>
internal static class LeaseContainerQuery
{
    /// <summary>
    /// Calls <paramref name="onRow"/> for every row of <paramref name="query"/>; a row is valid only during the call
    /// (its page is released after it: <see cref="JsonElement.Clone"/> what is kept).
    /// </summary>
    /// <exception cref="CosmosException">The lease container refused a page.</exception>
    public static async Task ForEachRowAsync(Container leaseContainer, QueryDefinition query, RequestUnitBudget? budget, Action<JsonElement> onRow, CancellationToken cancellationToken)
    {
        using FeedIterator pages = leaseContainer.GetItemQueryStreamIterator(query);
        while (pages.HasMoreResults)
        {
            using ResponseMessage page = await pages.ReadNextAsync(cancellationToken).ConfigureAwait(false);
            budget?.Charge(page.Headers.RequestCharge);
            page.EnsureSuccessStatusCode();
            using JsonDocument document = await JsonDocument.ParseAsync(page.Content, cancellationToken: cancellationToken).ConfigureAwait(false);
            foreach (JsonElement row in document.RootElement.GetProperty("Documents").EnumerateArray())
            {
                onRow(row);
            }
        }
    }
}
