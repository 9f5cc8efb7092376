using Encryption.Custom.Cosmos.Feeds;
using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Cosmos.Queries;
using Encryption.Custom.Cosmos.Queries.Tokens;
using Encryption.Custom.Diagnostics;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos;

/// <summary>Queries and read-many: every page is decrypted by the container's processor.</summary>
internal sealed partial class EncryptionContainer
{
    public override FeedIterator<T> GetItemQueryIterator<T>(QueryDefinition queryDefinition, string? continuationToken = null, QueryRequestOptions? requestOptions = null) =>
        new EncryptionFeedIterator<T>(Query(Checked(queryDefinition, out TokenRecheck? recheck), recheck, d => _inner.GetItemQueryStreamIterator(d, continuationToken, Lookups.Encrypt(requestOptions))));

    public override FeedIterator<T> GetItemQueryIterator<T>(string? queryText = null, string? continuationToken = null, QueryRequestOptions? requestOptions = null) =>
        new EncryptionFeedIterator<T>(Query(Checked(queryText, out TokenRecheck? recheck), recheck, d => _inner.GetItemQueryStreamIterator(d!, continuationToken, Lookups.Encrypt(requestOptions))));

    public override FeedIterator<T> GetItemQueryIterator<T>(FeedRange feedRange, QueryDefinition queryDefinition, string? continuationToken = null, QueryRequestOptions? requestOptions = null) =>
        new EncryptionFeedIterator<T>(Query(Checked(queryDefinition, out TokenRecheck? recheck), recheck, d => _inner.GetItemQueryStreamIterator(Lookups.Encrypt(feedRange), d, continuationToken, Lookups.Encrypt(requestOptions))));

    public override FeedIterator GetItemQueryStreamIterator(QueryDefinition queryDefinition, string? continuationToken = null, QueryRequestOptions? requestOptions = null) =>
        Query(Checked(queryDefinition, out TokenRecheck? recheck), recheck, d => _inner.GetItemQueryStreamIterator(d, continuationToken, Lookups.Encrypt(requestOptions)));

    public override FeedIterator GetItemQueryStreamIterator(string? queryText = null, string? continuationToken = null, QueryRequestOptions? requestOptions = null) =>
        Query(Checked(queryText, out TokenRecheck? recheck), recheck, d => _inner.GetItemQueryStreamIterator(d!, continuationToken, Lookups.Encrypt(requestOptions)));

    public override FeedIterator GetItemQueryStreamIterator(FeedRange feedRange, QueryDefinition queryDefinition, string? continuationToken = null, QueryRequestOptions? requestOptions = null) =>
        Query(Checked(queryDefinition, out TokenRecheck? recheck), recheck, d => _inner.GetItemQueryStreamIterator(Lookups.Encrypt(feedRange), d, continuationToken, Lookups.Encrypt(requestOptions)));

    public override async Task<ResponseMessage> ReadManyItemsStreamAsync(IReadOnlyList<(string id, PartitionKey partitionKey)> items, ReadManyRequestOptions? readManyRequestOptions = null, CancellationToken cancellationToken = default)
    {
        using OperationTelemetry? telemetry = OperationTelemetry.Start(OperationNames.ReadManyItemsStream, Id);
        try
        {
            return await ReadManyCoreAsync(items, readManyRequestOptions, telemetry, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
        {
            throw;
        }
    }

    public override async Task<FeedResponse<T>> ReadManyItemsAsync<T>(IReadOnlyList<(string id, PartitionKey partitionKey)> items, ReadManyRequestOptions? readManyRequestOptions = null, CancellationToken cancellationToken = default)
    {
        using OperationTelemetry? telemetry = OperationTelemetry.Start(OperationNames.ReadManyItems, Id);
        try
        {
            if (typeof(T) == typeof(DecryptableItem))
            {
                ResponseMessage raw = await _inner.ReadManyItemsStreamAsync(await Lookups.EncryptAsync(items, cancellationToken).ConfigureAwait(false), readManyRequestOptions, cancellationToken).ConfigureAwait(false);
                telemetry?.SetStatusCode(raw.StatusCode);
                return await EncryptionFeedIterator<T>.ToDecryptableItemsAsync(raw, this, await Crypto.GetProcessorAsync(cancellationToken).ConfigureAwait(false), cancellationToken).ConfigureAwait(false);
            }

            ResponseMessage page = await ReadManyCoreAsync(items, readManyRequestOptions, telemetry, cancellationToken).ConfigureAwait(false);
            return _responseFactory.CreateItemFeedResponse<T>(page);
        }
        catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
        {
            throw;
        }
    }

    /// <summary>Refuses queries the service cannot evaluate on encrypted policy paths, expands encrypted parameters (see <see cref="QueryGuard"/>).</summary>
    internal QueryGuard QueryGuard { get; }

    /// <summary>Wraps a stream iterator of the inner container so that its pages are decrypted.</summary>
    internal EncryptionFeedIterator Wrap(FeedIterator inner, FeedKind kind) => new(inner, this, kind);

    /// <summary>Wraps a query's stream iterator: pages decrypted, and re-checked when the query has range or prefix conditions.</summary>
    internal EncryptionFeedIterator Query(QueryDefinition? checkedDefinition, TokenRecheck? recheck, Func<QueryDefinition?, FeedIterator> open) =>
        new(open(checkedDefinition), this, FeedKind.Query, recheck);

    private QueryDefinition Checked(QueryDefinition queryDefinition, out TokenRecheck? recheck) => QueryGuard.Check(queryDefinition, out recheck);

    // Text goes through the same check as a QueryDefinition (its literals may be encrypted); no text reads everything.
    private QueryDefinition? Checked(string? queryText, out TokenRecheck? recheck)
    {
        recheck = null;
        return queryText is null ? null : QueryGuard.Check(new QueryDefinition(queryText), out recheck);
    }

    private async Task<ResponseMessage> ReadManyCoreAsync(IReadOnlyList<(string id, PartitionKey partitionKey)> items, ReadManyRequestOptions? options, OperationTelemetry? telemetry, CancellationToken cancellationToken)
    {
        ResponseMessage response = await _inner.ReadManyItemsStreamAsync(await Lookups.EncryptAsync(items, cancellationToken).ConfigureAwait(false), options, cancellationToken).ConfigureAwait(false);
        telemetry?.SetStatusCode(response.StatusCode);
        return await EncryptionFeedIterator.DecryptPageAsync(response, this, telemetry, cancellationToken).ConfigureAwait(false);
    }
}
