using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Keys.Cosmos;

/// <summary>Iterates a DEK query through the stream API and parses each page with the key layer's own JSON code.</summary>
internal sealed class DataEncryptionKeyFeedIterator(FeedIterator inner) : FeedIterator<DataEncryptionKeyProperties>
{
    public override bool HasMoreResults => inner.HasMoreResults;

    public override async Task<FeedResponse<DataEncryptionKeyProperties>> ReadNextAsync(CancellationToken cancellationToken = default)
    {
        using ResponseMessage response = await inner.ReadNextAsync(cancellationToken).ConfigureAwait(false);
        response.EnsureSuccessStatusCode();
        byte[] page = await CosmosStreams.ReadAllAsync(response.Content, cancellationToken).ConfigureAwait(false);
        List<DataEncryptionKeyProperties> documents = page.Length == 0 ? [] : DataEncryptionKeyPropertiesSerializer.ReadFeedPage(page);
        return new DataEncryptionKeyFeedResponse(response, documents);
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            inner.Dispose();
        }

        base.Dispose(disposing);
    }
}
