using Encryption.Custom.Cosmos.Responses;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Keys.Cosmos;
using Encryption.Custom.Processing;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Feeds;

/// <summary>
/// A typed feed iterator over an <see cref="EncryptionFeedIterator"/>: pages are decrypted, then deserialized by
/// the client's response factory. With <typeparamref name="T"/> = <see cref="DecryptableItem"/>, pages are not
/// decrypted here: each document becomes a <see cref="DecryptableItem"/> that decrypts (and fails) on its own.
/// </summary>
internal sealed class EncryptionFeedIterator<T> : FeedIterator<T>
{
    private readonly EncryptionFeedIterator _stream;

    public EncryptionFeedIterator(EncryptionFeedIterator stream)
    {
        _stream = stream;
    }

    public override bool HasMoreResults => _stream.HasMoreResults;

    public override async Task<FeedResponse<T>> ReadNextAsync(CancellationToken cancellationToken = default)
    {
        EncryptionContainer container = _stream.Container;
        if (typeof(T) != typeof(DecryptableItem))
        {
            ResponseMessage page = await _stream.ReadNextAsync(cancellationToken).ConfigureAwait(false);
            return container.ResponseFactory.CreateItemFeedResponse<T>(page);
        }

        if (_stream.Rechecks)
        {
            // A DecryptableItem decrypts later, one by one: the page could not be re-checked before it is handed out.
            throw new NotSupportedException("A range or prefix query on encrypted paths re-checks each decrypted row before returning it, which DecryptableItem results (decrypted later, one by one) cannot do: query with your own type, or a stream iterator (docs/queries.md, \"Range and prefix queries\").");
        }

        using OperationTelemetry? telemetry = OperationTelemetry.Start(_stream.Operation, container.Id);
        try
        {
            ResponseMessage raw = await _stream.ReadNextRawAsync(cancellationToken).ConfigureAwait(false);
            telemetry?.SetStatusCode(raw.StatusCode);
            return await ToDecryptableItemsAsync(raw, container, await container.Crypto.GetProcessorAsync(cancellationToken).ConfigureAwait(false), cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
        {
            throw;
        }
    }

    /// <summary>Turns a raw page into <see cref="DecryptableItem"/>s; a failed response throws as the SDK's would (304 is a page).</summary>
    internal static async Task<FeedResponse<T>> ToDecryptableItemsAsync(
        ResponseMessage raw,
        EncryptionContainer container,
        EncryptionProcessor processor,
        CancellationToken cancellationToken)
    {
        using (raw)
        {
            if (raw.StatusCode != System.Net.HttpStatusCode.NotModified)
            {
                raw.EnsureSuccessStatusCode();
            }

            var items = new List<T>();
            if (raw.Content is not null && raw.IsSuccessStatusCode)
            {
                byte[] page = await CosmosStreams.ReadAllAsync(raw.Content, cancellationToken).ConfigureAwait(false);
                if (page.Length > 0)
                {
                    foreach (byte[] document in FeedPageSplitter.Split(page))
                    {
                        items.Add((T)(object)new DecryptableItemCore(document, container.Crypto, processor, container.Serializer, container.Id));
                    }
                }
            }

            return new EncryptionFeedResponse<T>(raw, items);
        }
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _stream.Dispose();
        }

        base.Dispose(disposing);
    }
}
