using System.Net;
using System.Security.Cryptography;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Keys.Caching;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Keys.Cosmos;

/// <summary>The DEK container operations over the provider's Cosmos container, through the stream API.</summary>
internal sealed class DataEncryptionKeyContainerCore(CosmosDataEncryptionKeyProvider provider) : DataEncryptionKeyContainer
{
    public override async Task<ItemResponse<DataEncryptionKeyProperties>> CreateDataEncryptionKeyAsync(
        string id,
        string encryptionAlgorithm,
        EncryptionKeyWrapMetadata encryptionKeyWrapMetadata,
        ItemRequestOptions? requestOptions = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(id);
        ArgumentException.ThrowIfNullOrEmpty(encryptionAlgorithm);
        ArgumentNullException.ThrowIfNull(encryptionKeyWrapMetadata);
        Container container = provider.GetInitializedContainer();
        if (DekCache.GetSlot(encryptionAlgorithm) < 0)
        {
            throw KeyErrors.UnsupportedAlgorithm(id, encryptionAlgorithm);
        }

        // Pinned so the GC never copies the raw key; zeroed whatever happens.
        byte[] rawKey = GC.AllocateUninitializedArray<byte>(KeyErrors.RawKeyLength, pinned: true);
        EncryptionKeyWrapResult wrapped;
        try
        {
            RandomNumberGenerator.Fill(rawKey);
            wrapped = await WrapAndVerifyAsync(id, rawKey, encryptionKeyWrapMetadata, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(rawKey);
        }

        var properties = new DataEncryptionKeyProperties(
            id,
            encryptionAlgorithm,
            wrapped.WrappedDataEncryptionKey,
            wrapped.EncryptionKeyWrapMetadata,
            DateTimeOffset.FromUnixTimeSeconds(provider.TimeProvider.GetUtcNow().ToUnixTimeSeconds()));
        using var body = new MemoryStream(DataEncryptionKeyPropertiesSerializer.ToUtf8Bytes(properties, includeSystemProperties: false));
        using ResponseMessage response = await container.CreateItemStreamAsync(body, new PartitionKey(id), requestOptions, cancellationToken).ConfigureAwait(false);
        response.EnsureSuccessStatusCode();
        DataEncryptionKeyProperties stored = await ReadBodyAsync(container, response, properties, id, cancellationToken).ConfigureAwait(false);
        await provider.Cache.InvalidateAsync(id, stored, cancellationToken).ConfigureAwait(false);
        return new DataEncryptionKeyItemResponse(response, stored);
    }

    public override async Task<ItemResponse<DataEncryptionKeyProperties>> ReadDataEncryptionKeyAsync(
        string id,
        ItemRequestOptions? requestOptions = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(id);
        Container container = provider.GetInitializedContainer();
        (ResponseMessage response, DataEncryptionKeyProperties properties) = await ReadCoreAsync(container, id, requestOptions, cancellationToken).ConfigureAwait(false);
        using (response)
        {
            return new DataEncryptionKeyItemResponse(response, properties);
        }
    }

    public override async Task<ItemResponse<DataEncryptionKeyProperties>> RewrapDataEncryptionKeyAsync(
        string id,
        EncryptionKeyWrapMetadata newWrapMetadata,
        string? encryptionAlgorithm = null,
        ItemRequestOptions? requestOptions = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(id);
        ArgumentNullException.ThrowIfNull(newWrapMetadata);
        Container container = provider.GetInitializedContainer();
        if (encryptionAlgorithm is not null && DekCache.GetSlot(encryptionAlgorithm) < 0)
        {
            throw KeyErrors.UnsupportedAlgorithm(id, encryptionAlgorithm);
        }

        // A caller-supplied ETag is the caller's own concurrency decision: one attempt, and a 412 goes back to them.
        string? callerETag = requestOptions?.IfMatchEtag;
        int maxAttempts = callerETag is null ? provider.Options.RewrapMaxAttempts : 1;
        CosmosException? lastConflict = null;
        for (int attempt = 1; attempt <= maxAttempts; attempt++)
        {
            (ResponseMessage readResponse, DataEncryptionKeyProperties current) = await ReadCoreAsync(container, id, null, cancellationToken).ConfigureAwait(false);
            readResponse.Dispose();
            EncryptionKeyWrapResult rewrapped = await RewrapCoreAsync(current, newWrapMetadata, cancellationToken).ConfigureAwait(false);
            var replacement = new DataEncryptionKeyProperties(
                id,
                encryptionAlgorithm ?? current.EncryptionAlgorithm,
                rewrapped.WrappedDataEncryptionKey,
                rewrapped.EncryptionKeyWrapMetadata,
                current.CreatedTime,
                eTag: null,
                lastModified: null,
                selfLink: null,
                resourceId: null);
            ItemRequestOptions options = CopyForReplace(requestOptions, callerETag ?? current.ETag);
            using var body = new MemoryStream(DataEncryptionKeyPropertiesSerializer.ToUtf8Bytes(replacement, includeSystemProperties: false));
            ResponseMessage response = await container.ReplaceItemStreamAsync(body, id, new PartitionKey(id), options, cancellationToken).ConfigureAwait(false);
            using (response)
            {
                if (response.StatusCode == HttpStatusCode.PreconditionFailed && callerETag is null)
                {
                    lastConflict = CosmosResponses.ToException(response, $"Data encryption key '{UntrustedText.Shorten(id)}' changed while it was being rewrapped.");
                    continue;
                }

                if (response.StatusCode == HttpStatusCode.NotFound)
                {
                    throw KeyErrors.NotFound(id, CosmosResponses.ToException(response, $"Data encryption key '{UntrustedText.Shorten(id)}' was not found."));
                }

                response.EnsureSuccessStatusCode();
                DataEncryptionKeyProperties stored = await ReadBodyAsync(container, response, replacement, id, cancellationToken).ConfigureAwait(false);
                await provider.Cache.InvalidateAsync(id, stored, cancellationToken).ConfigureAwait(false);
                return new DataEncryptionKeyItemResponse(response, stored);
            }
        }

        throw KeyErrors.RewrapConflict(id, maxAttempts, lastConflict!);
    }

    public override FeedIterator<DataEncryptionKeyProperties> GetDataEncryptionKeyQueryIterator(
        string? queryText = null,
        string? continuationToken = null,
        QueryRequestOptions? requestOptions = null)
    {
        Container container = provider.GetInitializedContainer();
        return new DataEncryptionKeyFeedIterator(container.GetItemQueryStreamIterator(queryText, continuationToken, requestOptions));
    }

    public override FeedIterator<DataEncryptionKeyProperties> GetDataEncryptionKeyQueryIterator(
        QueryDefinition queryDefinition,
        string? continuationToken = null,
        QueryRequestOptions? requestOptions = null)
    {
        ArgumentNullException.ThrowIfNull(queryDefinition);
        Container container = provider.GetInitializedContainer();
        return new DataEncryptionKeyFeedIterator(container.GetItemQueryStreamIterator(queryDefinition, continuationToken, requestOptions));
    }

    /// <summary>Reads and parses a DEK document; 404 becomes the "not found" <see cref="EncryptionException"/>.</summary>
    internal static async Task<(ResponseMessage Response, DataEncryptionKeyProperties Properties)> ReadCoreAsync(
        Container container,
        string id,
        ItemRequestOptions? requestOptions,
        CancellationToken cancellationToken)
    {
        ResponseMessage response = await container.ReadItemStreamAsync(id, new PartitionKey(id), requestOptions, cancellationToken).ConfigureAwait(false);
        try
        {
            if (response.StatusCode == HttpStatusCode.NotFound)
            {
                throw KeyErrors.NotFound(id, CosmosResponses.ToException(response, $"Data encryption key '{UntrustedText.Shorten(id)}' was not found."));
            }

            response.EnsureSuccessStatusCode();
            byte[] document = await CosmosStreams.ReadAllAsync(response.Content, cancellationToken).ConfigureAwait(false);
            DataEncryptionKeyProperties properties = DataEncryptionKeyPropertiesSerializer.Read(document, id);
            if (!string.Equals(properties.Id, id, StringComparison.Ordinal))
            {
                throw KeyErrors.InvalidDocument(id, "its \"id\" differs from the id that was read");
            }

            return (response, properties);
        }
        catch
        {
            response.Dispose();
            throw;
        }
    }

    /// <summary>
    /// The stored document from the response body, or the written one with the response's ETag when there is no body.
    /// A body that cannot be read (cut off or damaged on its way) says nothing about the DEK: the service answered
    /// with success, so the write was applied. Reporting the DEK document invalid would make the caller think nothing
    /// usable was stored (and a retried create then meets its own DEK as a conflict), so the stored document is read
    /// back instead and accepted when it is the one written (its wrapped key is unique to this write).
    /// </summary>
    private static async Task<DataEncryptionKeyProperties> ReadBodyAsync(
        Container container,
        ResponseMessage response,
        DataEncryptionKeyProperties written,
        string id,
        CancellationToken cancellationToken)
    {
        byte[] document = await CosmosStreams.ReadAllAsync(response.Content, cancellationToken).ConfigureAwait(false);
        if (document.Length > 0)
        {
            try
            {
                return DataEncryptionKeyPropertiesSerializer.Read(document, id);
            }
            catch (EncryptionException unreadable)
            {
                return await ConfirmWrittenAsync(container, written, id, unreadable, cancellationToken).ConfigureAwait(false);
            }
        }

        // EnableContentResponseOnWrite = false: no body, but the ETag still comes back in the headers.
        return new DataEncryptionKeyProperties(
            written.Id,
            written.EncryptionAlgorithm,
            written.WrappedDataEncryptionKey,
            written.EncryptionKeyWrapMetadata,
            written.CreatedTime,
            response.Headers.ETag,
            lastModified: null,
            selfLink: null,
            resourceId: null);
    }

    /// <summary>The stored DEK document when it is <paramref name="written"/>; else the error says the write was applied but is not what is stored now.</summary>
    private static async Task<DataEncryptionKeyProperties> ConfirmWrittenAsync(
        Container container,
        DataEncryptionKeyProperties written,
        string id,
        EncryptionException unreadable,
        CancellationToken cancellationToken)
    {
        (ResponseMessage response, DataEncryptionKeyProperties stored) = await ReadCoreAsync(container, id, null, cancellationToken).ConfigureAwait(false);
        response.Dispose();
        if (string.Equals(stored.EncryptionAlgorithm, written.EncryptionAlgorithm, StringComparison.Ordinal)
            && stored.EncryptionKeyWrapMetadata.Equals(written.EncryptionKeyWrapMetadata)
            && stored.WrappedDataEncryptionKey.Span.SequenceEqual(written.WrappedDataEncryptionKey.Span))
        {
            return stored;
        }

        throw KeyErrors.WriteUnconfirmed(id, unreadable);
    }

    /// <summary>A copy of the caller's options with the ETag to replace against; the caller's object is never changed.</summary>
    private static ItemRequestOptions CopyForReplace(ItemRequestOptions? source, string? eTag) => new()
    {
        IfMatchEtag = eTag,
        ConsistencyLevel = source?.ConsistencyLevel,
        SessionToken = source?.SessionToken,
        EnableContentResponseOnWrite = source?.EnableContentResponseOnWrite,
        IndexingDirective = source?.IndexingDirective,
        PreTriggers = source?.PreTriggers,
        PostTriggers = source?.PostTriggers,
        PriorityLevel = source?.PriorityLevel,
        ExcludeRegions = source?.ExcludeRegions,
        Properties = source?.Properties,
        AddRequestHeaders = source?.AddRequestHeaders,
    };

    /// <summary>Wraps <paramref name="rawKey"/> and checks, in fixed time, that the wrapping unwraps to the same bytes.</summary>
    private async Task<EncryptionKeyWrapResult> WrapAndVerifyAsync(
        string id,
        ReadOnlyMemory<byte> rawKey,
        EncryptionKeyWrapMetadata metadata,
        CancellationToken cancellationToken)
    {
        EncryptionKeyWrapProvider wrapProvider = provider.EncryptionKeyWrapProvider;
        EncryptionKeyWrapResult wrapped;
        try
        {
            wrapped = await wrapProvider.WrapKeyAsync(rawKey, metadata, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not (OperationCanceledException or ArgumentException))
        {
            throw KeyErrors.WrapFailed(id, exception);
        }

        EncryptionKeyUnwrapResult check;
        try
        {
            check = await wrapProvider.UnwrapKeyAsync(wrapped.WrappedDataEncryptionKey, wrapped.EncryptionKeyWrapMetadata, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OperationCanceledException)
        {
            throw KeyErrors.UnwrapFailed(id, exception);
        }

        using (check)
        {
            if (!CryptographicOperations.FixedTimeEquals(check.DataEncryptionKey, rawKey.Span))
            {
                throw KeyErrors.WrapNotVerified(id);
            }
        }

        return wrapped;
    }

    /// <summary>Unwraps the current wrapping and wraps the same raw key with <paramref name="newWrapMetadata"/>.</summary>
    private async Task<EncryptionKeyWrapResult> RewrapCoreAsync(
        DataEncryptionKeyProperties current,
        EncryptionKeyWrapMetadata newWrapMetadata,
        CancellationToken cancellationToken)
    {
        EncryptionKeyUnwrapResult unwrapped;
        try
        {
            unwrapped = await provider.EncryptionKeyWrapProvider.UnwrapKeyAsync(current.WrappedDataEncryptionKey, current.EncryptionKeyWrapMetadata, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OperationCanceledException)
        {
            throw KeyErrors.UnwrapFailed(current.Id, exception);
        }

        using (unwrapped)
        {
            if (unwrapped.DataEncryptionKey.Length != KeyErrors.RawKeyLength)
            {
                throw KeyErrors.WrongLength(current.Id, unwrapped.DataEncryptionKey.Length);
            }

            // The unwrap result's buffer is pinned and zeroed on dispose; the wrap provider only reads it.
            byte[] rawKey = GC.AllocateUninitializedArray<byte>(KeyErrors.RawKeyLength, pinned: true);
            try
            {
                unwrapped.DataEncryptionKey.CopyTo(rawKey);
                return await WrapAndVerifyAsync(current.Id, rawKey, newWrapMetadata, cancellationToken).ConfigureAwait(false);
            }
            finally
            {
                CryptographicOperations.ZeroMemory(rawKey);
            }
        }
    }
}
