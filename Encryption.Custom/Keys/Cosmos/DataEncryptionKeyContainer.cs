using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>
/// The data encryption keys stored in a Cosmos DB container: create, read, rewrap (key-encryption key rotation)
/// and query them. Obtained from <see cref="CosmosDataEncryptionKeyProvider.DataEncryptionKeyContainer"/>.
/// </summary>
/// <remarks>
/// Documents are written and read through the container's stream API with the library's own JSON code, so a
/// client configured with a custom serializer cannot change them.
/// </remarks>
public abstract class DataEncryptionKeyContainer
{
    /// <summary>For subclasses (and mocking).</summary>
    protected DataEncryptionKeyContainer()
    {
    }

    /// <summary>
    /// Generates a new 32-byte data encryption key, wraps it with the key-encryption key named by
    /// <paramref name="encryptionKeyWrapMetadata"/>, checks that the wrapped key unwraps to the same bytes, and
    /// stores it.
    /// </summary>
    /// <param name="id">The DEK id (unique in the container; documents name it in <c>_ei._en</c>).</param>
    /// <param name="encryptionAlgorithm">The algorithm (see <see cref="CosmosEncryptionAlgorithm"/>).</param>
    /// <param name="encryptionKeyWrapMetadata">Names the key-encryption key and the wrap algorithm.</param>
    /// <param name="requestOptions">Options for the create request, or null.</param>
    /// <param name="cancellationToken">Cancels the operation.</param>
    /// <returns>The stored document.</returns>
    /// <exception cref="ArgumentException"><paramref name="id"/> or <paramref name="encryptionAlgorithm"/> is null or empty, or the metadata is not for the configured key-wrap provider.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="encryptionKeyWrapMetadata"/> is null.</exception>
    /// <exception cref="EncryptionException">
    /// The algorithm is unknown (<see cref="EncryptionErrorKind.InvalidOptions"/>), or wrapping failed or did not
    /// verify (<see cref="EncryptionErrorKind.KeyUnavailable"/>). Nothing is stored then.
    /// </exception>
    /// <exception cref="CosmosException">The container refused the document, for example 409 when the id exists.</exception>
    /// <exception cref="InvalidOperationException">The provider is not initialized.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public abstract Task<ItemResponse<DataEncryptionKeyProperties>> CreateDataEncryptionKeyAsync(
        string id,
        string encryptionAlgorithm,
        EncryptionKeyWrapMetadata encryptionKeyWrapMetadata,
        ItemRequestOptions? requestOptions = null,
        CancellationToken cancellationToken = default);

    /// <summary>Reads a DEK document from the container (not from the cache).</summary>
    /// <param name="id">The DEK id.</param>
    /// <param name="requestOptions">Options for the read request, or null.</param>
    /// <param name="cancellationToken">Cancels the operation.</param>
    /// <returns>The document.</returns>
    /// <exception cref="ArgumentException"><paramref name="id"/> is null or empty.</exception>
    /// <exception cref="EncryptionException">No DEK has that id, or its document lacks a required member (<see cref="EncryptionErrorKind.KeyUnavailable"/>).</exception>
    /// <exception cref="CosmosException">The read failed for another reason (throttling, unavailability).</exception>
    /// <exception cref="InvalidOperationException">The provider is not initialized.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public abstract Task<ItemResponse<DataEncryptionKeyProperties>> ReadDataEncryptionKeyAsync(
        string id,
        ItemRequestOptions? requestOptions = null,
        CancellationToken cancellationToken = default);

    /// <summary>
    /// Rewraps a DEK with another key-encryption key (key rotation): unwraps it with its current metadata, wraps
    /// it with <paramref name="newWrapMetadata"/>, verifies the new wrapping, and replaces the document if nobody
    /// changed it meanwhile (ETag). On a concurrent change (412) it starts over, up to
    /// <see cref="CosmosDataEncryptionKeyProviderOptions.RewrapMaxAttempts"/> times. The raw key does not change,
    /// so existing documents stay readable. The provider's caches for this DEK are invalidated.
    /// </summary>
    /// <param name="id">The DEK id.</param>
    /// <param name="newWrapMetadata">The new key-encryption key and wrap algorithm.</param>
    /// <param name="encryptionAlgorithm">A new algorithm to record for the DEK, or null to keep the current one.</param>
    /// <param name="requestOptions">Options for the replace request, or null. When it sets <see cref="RequestOptions.IfMatchEtag"/>, that ETag is used and a 412 is not retried.</param>
    /// <param name="cancellationToken">Cancels the operation.</param>
    /// <returns>The replaced document.</returns>
    /// <exception cref="ArgumentException"><paramref name="id"/> is null or empty, or the metadata is not for the configured key-wrap provider.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="newWrapMetadata"/> is null.</exception>
    /// <exception cref="EncryptionException">
    /// The DEK does not exist, cannot be unwrapped, the new wrapping failed or did not verify, or other writers
    /// changed it during every attempt (<see cref="EncryptionErrorKind.KeyUnavailable"/>); the algorithm is unknown
    /// (<see cref="EncryptionErrorKind.InvalidOptions"/>).
    /// </exception>
    /// <exception cref="CosmosException">The container refused the request for another reason.</exception>
    /// <exception cref="InvalidOperationException">The provider is not initialized.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public abstract Task<ItemResponse<DataEncryptionKeyProperties>> RewrapDataEncryptionKeyAsync(
        string id,
        EncryptionKeyWrapMetadata newWrapMetadata,
        string? encryptionAlgorithm = null,
        ItemRequestOptions? requestOptions = null,
        CancellationToken cancellationToken = default);

    /// <summary>Queries DEK documents (for example to list the DEKs wrapped by a key-encryption key that is being retired).</summary>
    /// <param name="queryText">The Cosmos SQL query; null for all documents.</param>
    /// <param name="continuationToken">Where a previous iteration stopped, or null.</param>
    /// <param name="requestOptions">Options for the query, or null.</param>
    /// <returns>An iterator over pages of documents; a page whose document lacks a required member throws <see cref="EncryptionException"/>.</returns>
    /// <exception cref="InvalidOperationException">The provider is not initialized.</exception>
    public abstract FeedIterator<DataEncryptionKeyProperties> GetDataEncryptionKeyQueryIterator(
        string? queryText = null,
        string? continuationToken = null,
        QueryRequestOptions? requestOptions = null);

    /// <summary>Queries DEK documents with a parameterized query.</summary>
    /// <param name="queryDefinition">The query.</param>
    /// <param name="continuationToken">Where a previous iteration stopped, or null.</param>
    /// <param name="requestOptions">Options for the query, or null.</param>
    /// <returns>An iterator over pages of documents.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="queryDefinition"/> is null.</exception>
    /// <exception cref="InvalidOperationException">The provider is not initialized.</exception>
    public abstract FeedIterator<DataEncryptionKeyProperties> GetDataEncryptionKeyQueryIterator(
        QueryDefinition queryDefinition,
        string? continuationToken = null,
        QueryRequestOptions? requestOptions = null);
}
