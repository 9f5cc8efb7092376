using Encryption.Custom.Cosmos.Queries;
using Encryption.Custom.Cosmos.Feeds;
using Encryption.Custom.Diagnostics;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos;

/// <summary>Queries and read-many: every page is decrypted by the container's processor.</summary>
internal sealed partial class EncryptionContainer
{
    public override FeedIterator<T> GetItemQueryIterator<T>(QueryDefinition queryDefinition, string? continuationToken = null, QueryRequestOptions? requestOptions = null) =>
        new EncryptionFeedIterator<T>(Wrap(_inner.GetItemQueryStreamIterator(Checked(queryDefinition), continuationToken, requestOptions), FeedKind.Query));

    public override FeedIterator<T> GetItemQueryIterator<T>(string? queryText = null, string? continuationToken = null, QueryRequestOptions? requestOptions = null) =>
        new EncryptionFeedIterator<T>(Wrap(_inner.GetItemQueryStreamIterator(Checked(queryText)!, continuationToken, requestOptions), FeedKind.Query));

    public override FeedIterator<T> GetItemQueryIterator<T>(FeedRange feedRange, QueryDefinition queryDefinition, string? continuationToken = null, QueryRequestOptions? requestOptions = null) =>
        new EncryptionFeedIterator<T>(Wrap(_inner.GetItemQueryStreamIterator(feedRange, Checked(queryDefinition), continuationToken, requestOptions), FeedKind.Query));

    public override FeedIterator GetItemQueryStreamIterator(QueryDefinition queryDefinition, string? continuationToken = null, QueryRequestOptions? requestOptions = null) =>
        Wrap(_inner.GetItemQueryStreamIterator(Checked(queryDefinition), continuationToken, requestOptions), FeedKind.Query);

    public override FeedIterator GetItemQueryStreamIterator(string? queryText = null, string? continuationToken = null, QueryRequestOptions? requestOptions = null) =>
        Wrap(_inner.GetItemQueryStreamIterator(Checked(queryText)!, continuationToken, requestOptions), FeedKind.Query);

    public override FeedIterator GetItemQueryStreamIterator(FeedRange feedRange, QueryDefinition queryDefinition, string? continuationToken = null, QueryRequestOptions? requestOptions = null) =>
        Wrap(_inner.GetItemQueryStreamIterator(feedRange, Checked(queryDefinition), continuationToken, requestOptions), FeedKind.Query);

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
                ResponseMessage raw = await _inner.ReadManyItemsStreamAsync(items, readManyRequestOptions, cancellationToken).ConfigureAwait(false);
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

    private QueryDefinition Checked(QueryDefinition queryDefinition) => QueryGuard.Check(queryDefinition);

    // Text goes through the same check as a QueryDefinition (its literals may be encrypted); no text reads everything.
    private QueryDefinition? Checked(string? queryText) => queryText is null ? null : QueryGuard.Check(new QueryDefinition(queryText));

    private async Task<ResponseMessage> ReadManyCoreAsync(IReadOnlyList<(string id, PartitionKey partitionKey)> items, ReadManyRequestOptions? options, OperationTelemetry? telemetry, CancellationToken cancellationToken)
    {
        ResponseMessage response = await _inner.ReadManyItemsStreamAsync(items, options, cancellationToken).ConfigureAwait(false);
        telemetry?.SetStatusCode(response.StatusCode);
        return await EncryptionFeedIterator.DecryptPageAsync(response, this, telemetry, cancellationToken).ConfigureAwait(false);
    }
}
