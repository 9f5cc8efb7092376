using Encryption.Custom.Cosmos.Queries.Tokens;
using Encryption.Custom.Cosmos.Responses;
using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Diagnostics;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Feeds;

/// <summary>
/// A stream feed iterator (query, read-many or change feed) whose successful pages are decrypted document by
/// document by the container's processor; a page with a document that cannot be decrypted throws.
/// </summary>
internal sealed class EncryptionFeedIterator : FeedIterator
{
    private readonly FeedIterator _inner;
    private readonly EncryptionContainer _container;
    private readonly string _operation;

    // The client's re-check of a token query's rows, or null (docs/queries.md "Range and prefix queries").
    private readonly TokenRecheck? _recheck;

    public EncryptionFeedIterator(FeedIterator inner, EncryptionContainer container, FeedKind kind, TokenRecheck? recheck = null)
    {
        _inner = inner;
        _recheck = recheck;
        _container = container;
        _operation = kind == FeedKind.ChangeFeed ? OperationNames.ChangeFeedReadNext : OperationNames.QueryReadNext;
    }

    public override bool HasMoreResults => _inner.HasMoreResults;

    internal EncryptionContainer Container => _container;

    internal string Operation => _operation;

    /// <summary>Whether pages are re-checked on the client (a range or prefix query): raw pages would skip it.</summary>
    internal bool Rechecks => _recheck is not null;

    public override async Task<ResponseMessage> ReadNextAsync(CancellationToken cancellationToken = default)
    {
        using OperationTelemetry? telemetry = OperationTelemetry.Start(_operation, _container.Id);
        try
        {
            ResponseMessage response = await _inner.ReadNextAsync(cancellationToken).ConfigureAwait(false);
            telemetry?.SetStatusCode(response.StatusCode);
            ResponseMessage decrypted = await DecryptPageAsync(response, _container, telemetry, cancellationToken).ConfigureAwait(false);
            return _recheck is null ? decrypted : await _recheck.FilterAsync(decrypted, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
        {
            throw;
        }
    }

    /// <summary>The next page as the service sent it (for <see cref="DecryptableItem"/>s).</summary>
    internal Task<ResponseMessage> ReadNextRawAsync(CancellationToken cancellationToken) => _inner.ReadNextAsync(cancellationToken);

    /// <summary>Decrypts a successful page into a new response; other responses are returned as they are.</summary>
    internal static async Task<ResponseMessage> DecryptPageAsync(
        ResponseMessage response,
        EncryptionContainer container,
        OperationTelemetry? telemetry,
        CancellationToken cancellationToken)
    {
        Stream? content = response.Content;
        if (!response.IsSuccessStatusCode || content is null || (content.CanSeek && content.Length == content.Position))
        {
            return response;
        }

        PooledContentStream decrypted;
        try
        {
            decrypted = await container.Crypto.DecryptPageAsync(content, telemetry, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            response.Dispose();
            throw;
        }

        await content.DisposeAsync().ConfigureAwait(false);
        return new DecryptedResponseMessage(response, decrypted);
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _inner.Dispose();
        }

        base.Dispose(disposing);
    }
}
