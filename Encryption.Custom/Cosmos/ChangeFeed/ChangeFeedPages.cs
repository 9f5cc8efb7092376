using System.Net;
using Encryption.Custom.Cosmos.Feeds;
using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Diagnostics;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.ChangeFeed;

/// <summary>
/// What the change feed processor's handlers receive through an encryption container: each batch of changes
/// (a feed page) decrypted, then deserialized like the SDK does, or split into <see cref="DecryptableItem"/>s.
/// </summary>
internal static class ChangeFeedPages
{
    /// <summary>Decrypts a page of changes; the caller owns (and disposes) the returned stream.</summary>
    public static async Task<PooledContentStream> DecryptAsync(EncryptionContainer container, Stream changes, OperationTelemetry? telemetry, CancellationToken cancellationToken)
    {
        PooledContentStream decrypted = await container.Crypto.DecryptPageAsync(changes, telemetry, cancellationToken).ConfigureAwait(false);
        return decrypted;
    }

    /// <summary>Decrypts and deserializes a page of changes with the client's serializer.</summary>
    public static async Task<IReadOnlyCollection<T>> ToItemsAsync<T>(EncryptionContainer container, Stream changes, OperationTelemetry? telemetry, CancellationToken cancellationToken)
    {
        if (typeof(T) == typeof(DecryptableItem))
        {
            using var raw = new ResponseMessage(HttpStatusCode.OK) { Content = changes };
            FeedResponse<T> decryptable = await EncryptionFeedIterator<T>.ToDecryptableItemsAsync(raw, container, await container.Crypto.GetProcessorAsync(cancellationToken).ConfigureAwait(false), cancellationToken).ConfigureAwait(false);
            return (IReadOnlyCollection<T>)decryptable.Resource;
        }

        PooledContentStream decrypted = await DecryptAsync(container, changes, telemetry, cancellationToken).ConfigureAwait(false);

        // The response factory deserializes the page's documents the way the SDK's own handlers get them.
        using var page = new ResponseMessage(HttpStatusCode.OK) { Content = decrypted };
        FeedResponse<T> response = container.ResponseFactory.CreateItemFeedResponse<T>(page);
        return response.Resource as IReadOnlyCollection<T> ?? [.. response.Resource];
    }
}
