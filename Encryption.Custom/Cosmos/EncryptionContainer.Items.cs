using Encryption.Custom.Cosmos.Feeds;
using Encryption.Custom.Cosmos.Responses;
using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Keys.Cosmos;
using Encryption.Custom.Processing;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos;

/// <summary>Point operations: create, replace, upsert (encrypting), read (decrypting), delete (delegated).</summary>
internal sealed partial class EncryptionContainer
{
    public override Task<ItemResponse<T>> CreateItemAsync<T>(T item, PartitionKey? partitionKey = null, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(item);
        EncryptionOptions? encryption = ResolveWriteOptions(requestOptions);
        // An EncryptableItem is never the SDK's to serialize: its response is always this container's to build.
        return encryption is null && item is not EncryptableItem
            ? _inner.CreateItemAsync(item, partitionKey, requestOptions, cancellationToken)
            : WriteTypedAsync(ItemWrite.Create, item, null, partitionKey, requestOptions, encryption, cancellationToken);
    }

    public override Task<ItemResponse<T>> ReplaceItemAsync<T>(T item, string id, PartitionKey? partitionKey = null, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(item);
        ArgumentNullException.ThrowIfNull(id);
        EncryptionOptions? encryption = ResolveWriteOptions(requestOptions);
        // An EncryptableItem is never the SDK's to serialize: its response is always this container's to build.
        return encryption is null && item is not EncryptableItem
            ? _inner.ReplaceItemAsync(item, id, partitionKey, requestOptions, cancellationToken)
            : WriteTypedAsync(ItemWrite.Replace, item, id, partitionKey, requestOptions, encryption, cancellationToken);
    }

    public override Task<ItemResponse<T>> UpsertItemAsync<T>(T item, PartitionKey? partitionKey = null, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(item);
        EncryptionOptions? encryption = ResolveWriteOptions(requestOptions);
        // An EncryptableItem is never the SDK's to serialize: its response is always this container's to build.
        return encryption is null && item is not EncryptableItem
            ? _inner.UpsertItemAsync(item, partitionKey, requestOptions, cancellationToken)
            : WriteTypedAsync(ItemWrite.Upsert, item, null, partitionKey, requestOptions, encryption, cancellationToken);
    }

    public override Task<ResponseMessage> CreateItemStreamAsync(Stream streamPayload, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(streamPayload);
        return WriteStreamAsync(ItemWrite.Create, OperationNames.CreateItemStream, streamPayload, null, partitionKey, requestOptions, cancellationToken);
    }

    public override Task<ResponseMessage> ReplaceItemStreamAsync(Stream streamPayload, string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(streamPayload);
        ArgumentNullException.ThrowIfNull(id);
        return WriteStreamAsync(ItemWrite.Replace, OperationNames.ReplaceItemStream, streamPayload, id, partitionKey, requestOptions, cancellationToken);
    }

    public override Task<ResponseMessage> UpsertItemStreamAsync(Stream streamPayload, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(streamPayload);
        return WriteStreamAsync(ItemWrite.Upsert, OperationNames.UpsertItemStream, streamPayload, null, partitionKey, requestOptions, cancellationToken);
    }

    public override async Task<ItemResponse<T>> ReadItemAsync<T>(string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(id);
        using OperationTelemetry? telemetry = OperationTelemetry.Start(OperationNames.ReadItem, Id);
        try
        {
            if (typeof(T) == typeof(DecryptableItem))
            {
                ResponseMessage raw = await _inner.ReadItemStreamAsync(await Lookups.EncryptIdAsync(id, cancellationToken).ConfigureAwait(false), await Lookups.EncryptAsync(partitionKey, cancellationToken).ConfigureAwait(false), requestOptions, cancellationToken).ConfigureAwait(false);
                telemetry?.SetStatusCode(raw.StatusCode);
                return await ToDecryptableResponseAsync<T>(raw, cancellationToken).ConfigureAwait(false);
            }

            ResponseMessage response = await ReadStreamCoreAsync(id, partitionKey, requestOptions, telemetry, cancellationToken).ConfigureAwait(false);
            return _responseFactory.CreateItemResponse<T>(response);
        }
        catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
        {
            throw;
        }
    }

    public override async Task<ResponseMessage> ReadItemStreamAsync(string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(id);
        using OperationTelemetry? telemetry = OperationTelemetry.Start(OperationNames.ReadItemStream, Id);
        try
        {
            return await ReadStreamCoreAsync(id, partitionKey, requestOptions, telemetry, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
        {
            throw;
        }
    }

    public override async Task<ItemResponse<T>> DeleteItemAsync<T>(string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(id);
        return await _inner.DeleteItemAsync<T>(await Lookups.EncryptIdAsync(id, cancellationToken).ConfigureAwait(false), await Lookups.EncryptAsync(partitionKey, cancellationToken).ConfigureAwait(false), requestOptions, cancellationToken).ConfigureAwait(false);
    }

    public override async Task<ResponseMessage> DeleteItemStreamAsync(string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(id);
        return await _inner.DeleteItemStreamAsync(await Lookups.EncryptIdAsync(id, cancellationToken).ConfigureAwait(false), await Lookups.EncryptAsync(partitionKey, cancellationToken).ConfigureAwait(false), requestOptions, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Replaces a successful response's body with its decrypted form (in place: point responses are plain
    /// response messages). On failure the response is disposed and the exception propagates; for a write
    /// (<paramref name="write"/>) it becomes an <see cref="EncryptionResponseException"/>, since the service applied it.
    /// </summary>
    internal async Task DecryptResponseAsync(ResponseMessage response, OperationTelemetry? telemetry, bool write, CancellationToken cancellationToken)
    {
        Stream? content = response.Content;
        if (!response.IsSuccessStatusCode || content is null || (content.CanSeek && content.Length == content.Position))
        {
            return;
        }

        try
        {
            PooledContentStream decrypted = await Crypto.DecryptDocumentAsync(content, telemetry, cancellationToken).ConfigureAwait(false);
            response.Content = decrypted;
            await content.DisposeAsync().ConfigureAwait(false);
        }
        catch (EncryptionException exception) when (write)
        {
            // Read the headers before disposing: the caller must learn that the write landed, and where.
            var applied = new EncryptionResponseException(response.StatusCode, response.Headers.ETag, response.Headers.RequestCharge, exception);
            response.Dispose();
            throw applied;
        }
        catch
        {
            response.Dispose();
            throw;
        }
    }

    private async Task<ItemResponse<T>> WriteTypedAsync<T>(
        ItemWrite kind,
        T item,
        string? id,
        PartitionKey? partitionKey,
        ItemRequestOptions? requestOptions,
        EncryptionOptions? encryption,
        CancellationToken cancellationToken)
    {
        // Encryption needs the partition key up front: the item is ciphertext by the time the SDK could extract it.
        if (partitionKey is not PartitionKey key)
        {
            throw new ArgumentNullException(nameof(partitionKey), "A partition key is required when the item is encrypted.");
        }

        using OperationTelemetry? telemetry = OperationTelemetry.Start(OperationNames.Typed(kind), Id);
        try
        {
            ResponseMessage response;
            var encryptable = item as EncryptableItem;
            string? storedId = id is null ? null : await Lookups.EncryptIdAsync(id, cancellationToken).ConfigureAwait(false);
            PartitionKey storedKey = await Lookups.EncryptAsync(key, cancellationToken).ConfigureAwait(false);
            Stream body = encryptable is null ? Serializer.ToStream(item) : encryptable.ToStream(Serializer);
            await using (body.ConfigureAwait(false))
            {
                response = await WriteStreamCoreAsync(new ItemWriteRequest(kind, storedId, storedKey, requestOptions, encryption), body, telemetry, decryptResponse: encryptable is null, cancellationToken).ConfigureAwait(false);
            }

            if (encryptable is not null)
            {
                // As Microsoft's package: the resource is the item itself, carrying the stored document to decrypt on demand.
                encryptable.SetDecryptableItem(await ToDecryptableItemAsync(response, cancellationToken).ConfigureAwait(false));
                return new EncryptionItemResponse<T>(response, item);
            }

            return _responseFactory.CreateItemResponse<T>(response);
        }
        catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
        {
            throw;
        }
    }

    private async Task<ResponseMessage> WriteStreamAsync(
        ItemWrite kind,
        string operation,
        Stream body,
        string? id,
        PartitionKey partitionKey,
        ItemRequestOptions? requestOptions,
        CancellationToken cancellationToken)
    {
        using OperationTelemetry? telemetry = OperationTelemetry.Start(operation, Id);
        try
        {
            EncryptionOptions? encryption = ResolveWriteOptions(requestOptions);
            string? storedId = id is null ? null : await Lookups.EncryptIdAsync(id, cancellationToken).ConfigureAwait(false);
            PartitionKey storedKey = await Lookups.EncryptAsync(partitionKey, cancellationToken).ConfigureAwait(false);
            return await WriteStreamCoreAsync(new ItemWriteRequest(kind, storedId, storedKey, requestOptions, encryption), body, telemetry, decryptResponse: true, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (OperationNames.RecordFailure(telemetry, exception))
        {
            throw;
        }
    }

    private async Task<ResponseMessage> WriteStreamCoreAsync(ItemWriteRequest write, Stream body, OperationTelemetry? telemetry, bool decryptResponse, CancellationToken cancellationToken)
    {
        if (write.Encryption is not { } encryption)
        {
            ResponseMessage plain = await SendWriteAsync(write, body, cancellationToken).ConfigureAwait(false);
            telemetry?.SetStatusCode(plain.StatusCode);
            return plain;
        }

        // Options and the partition key rule are checked before the body is read or anything is sent.
        await _partitionKeyGuard.CheckAsync(encryption, cancellationToken).ConfigureAwait(false);
        ResponseMessage response;
        using (EncryptedRequestBody encrypted = await Crypto.EncryptAsync(body, encryption, CanRecycleBody(write.RequestOptions), telemetry, cancellationToken).ConfigureAwait(false))
        {
            response = await SendWriteAsync(write, encrypted.Stream, cancellationToken).ConfigureAwait(false);
        }

        telemetry?.SetStatusCode(response.StatusCode);
        if (decryptResponse)
        {
            await DecryptResponseAsync(response, telemetry, write: true, cancellationToken).ConfigureAwait(false);
        }

        return response;
    }

    private Task<ResponseMessage> SendWriteAsync(ItemWriteRequest write, Stream body, CancellationToken cancellationToken) => write.Kind switch
    {
        ItemWrite.Create => _inner.CreateItemStreamAsync(body, write.PartitionKey, write.RequestOptions, cancellationToken),
        ItemWrite.Replace => _inner.ReplaceItemStreamAsync(body, write.Id!, write.PartitionKey, write.RequestOptions, cancellationToken),
        _ => _inner.UpsertItemStreamAsync(body, write.PartitionKey, write.RequestOptions, cancellationToken),
    };

    private async Task<ResponseMessage> ReadStreamCoreAsync(string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions, OperationTelemetry? telemetry, CancellationToken cancellationToken)
    {
        string storedId = await Lookups.EncryptIdAsync(id, cancellationToken).ConfigureAwait(false);
        PartitionKey storedKey = await Lookups.EncryptAsync(partitionKey, cancellationToken).ConfigureAwait(false);
        ResponseMessage response = await _inner.ReadItemStreamAsync(storedId, storedKey, requestOptions, cancellationToken).ConfigureAwait(false);
        telemetry?.SetStatusCode(response.StatusCode);
        await DecryptResponseAsync(response, telemetry, write: false, cancellationToken).ConfigureAwait(false);
        return response;
    }

    /// <summary>Wraps a raw (still encrypted) point response as a <see cref="DecryptableItem"/> response; failures throw as the SDK's would.</summary>
    private async Task<ItemResponse<T>> ToDecryptableResponseAsync<T>(ResponseMessage raw, CancellationToken cancellationToken)
    {
        DecryptableItem item = await ToDecryptableItemAsync(raw, cancellationToken).ConfigureAwait(false);
        return new EncryptionItemResponse<T>(raw, (T)(object)item);
    }

    /// <summary>The stored (still encrypted) document of a point response, decrypted on demand; disposes the response's body.</summary>
    /// <exception cref="CosmosException">The response is not a success.</exception>
    private async Task<DecryptableItem> ToDecryptableItemAsync(ResponseMessage raw, CancellationToken cancellationToken)
    {
        using (raw)
        {
            raw.EnsureSuccessStatusCode();
            byte[] document = await CosmosStreams.ReadAllAsync(raw.Content, cancellationToken).ConfigureAwait(false);
            EncryptionProcessor processor = await Crypto.GetProcessorAsync(cancellationToken).ConfigureAwait(false);
            return new DecryptableItemCore(document, Crypto, processor, Serializer, Id);
        }
    }
}
