namespace Encryption.Custom;

/// <summary>
/// A data encryption key as stored in the DEK container: its id, algorithm, wrapped key and key-wrap metadata,
/// plus the Cosmos system properties. The document shape is the same as Microsoft's
/// <c>Microsoft.Azure.Cosmos.Encryption.Custom</c>, so either library reads the other's keys.
/// </summary>
/// <remarks>Nothing here is secret: the key is wrapped, and the metadata only names the key-encryption key.</remarks>
public sealed class DataEncryptionKeyProperties : IEquatable<DataEncryptionKeyProperties>
{
    /// <summary>Creates properties for a new key document.</summary>
    /// <param name="id">The DEK id (also its partition key).</param>
    /// <param name="encryptionAlgorithm">The algorithm the key is for (see <see cref="CosmosEncryptionAlgorithm"/>).</param>
    /// <param name="wrappedDataEncryptionKey">The wrapped key.</param>
    /// <param name="encryptionKeyWrapMetadata">The metadata that unwraps it.</param>
    /// <param name="createdTime">When the key was created.</param>
    /// <exception cref="ArgumentException"><paramref name="id"/> or <paramref name="encryptionAlgorithm"/> is null or empty, or the wrapped key is empty.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="encryptionKeyWrapMetadata"/> is null.</exception>
    public DataEncryptionKeyProperties(
        string id,
        string encryptionAlgorithm,
        ReadOnlyMemory<byte> wrappedDataEncryptionKey,
        EncryptionKeyWrapMetadata encryptionKeyWrapMetadata,
        DateTimeOffset createdTime)
    {
        ArgumentException.ThrowIfNullOrEmpty(id);
        ArgumentException.ThrowIfNullOrEmpty(encryptionAlgorithm);
        ArgumentNullException.ThrowIfNull(encryptionKeyWrapMetadata);
        if (wrappedDataEncryptionKey.IsEmpty)
        {
            throw new ArgumentException("The wrapped key is empty.", nameof(wrappedDataEncryptionKey));
        }

        Id = id;
        EncryptionAlgorithm = encryptionAlgorithm;
        WrappedDataEncryptionKey = wrappedDataEncryptionKey;
        EncryptionKeyWrapMetadata = encryptionKeyWrapMetadata;
        CreatedTime = createdTime;
    }

    /// <summary>Used by the serializer, which has already validated the required members.</summary>
    internal DataEncryptionKeyProperties(
        string id,
        string encryptionAlgorithm,
        ReadOnlyMemory<byte> wrappedDataEncryptionKey,
        EncryptionKeyWrapMetadata encryptionKeyWrapMetadata,
        DateTimeOffset? createdTime,
        string? eTag,
        DateTimeOffset? lastModified,
        string? selfLink,
        string? resourceId)
    {
        Id = id;
        EncryptionAlgorithm = encryptionAlgorithm;
        WrappedDataEncryptionKey = wrappedDataEncryptionKey;
        EncryptionKeyWrapMetadata = encryptionKeyWrapMetadata;
        CreatedTime = createdTime;
        ETag = eTag;
        LastModified = lastModified;
        SelfLink = selfLink;
        ResourceId = resourceId;
    }

    /// <summary>The DEK id (JSON <c>id</c>), also the document's partition key.</summary>
    public string Id { get; }

    /// <summary>The algorithm the key was created for (JSON <c>encryptionAlgorithm</c>).</summary>
    public string EncryptionAlgorithm { get; }

    /// <summary>The wrapped key (JSON <c>wrappedDataEncryptionKey</c>, base64).</summary>
    public ReadOnlyMemory<byte> WrappedDataEncryptionKey { get; }

    /// <summary>Names the key-encryption key that unwraps <see cref="WrappedDataEncryptionKey"/> (JSON <c>keyWrapMetadata</c>).</summary>
    public EncryptionKeyWrapMetadata EncryptionKeyWrapMetadata { get; }

    /// <summary>When the key was created (JSON <c>createTime</c>, Unix seconds); null if the document has none.</summary>
    public DateTimeOffset? CreatedTime { get; }

    /// <summary>The document's entity tag (JSON <c>_etag</c>), used for optimistic concurrency; null before it is stored.</summary>
    public string? ETag { get; }

    /// <summary>When the document was last written (JSON <c>_ts</c>, Unix seconds); null before it is stored.</summary>
    public DateTimeOffset? LastModified { get; }

    /// <summary>The document's self link (JSON <c>_self</c>); null before it is stored.</summary>
    public string? SelfLink { get; }

    /// <summary>The document's resource id (JSON <c>_rid</c>); null before it is stored.</summary>
    public string? ResourceId { get; }

    /// <inheritdoc/>
    public bool Equals(DataEncryptionKeyProperties? other) =>
        other is not null
        && string.Equals(Id, other.Id, StringComparison.Ordinal)
        && string.Equals(EncryptionAlgorithm, other.EncryptionAlgorithm, StringComparison.Ordinal)
        && WrappedDataEncryptionKey.Span.SequenceEqual(other.WrappedDataEncryptionKey.Span)
        && EncryptionKeyWrapMetadata.Equals(other.EncryptionKeyWrapMetadata)
        && CreatedTime == other.CreatedTime
        && string.Equals(ETag, other.ETag, StringComparison.Ordinal)
        && LastModified == other.LastModified
        && string.Equals(SelfLink, other.SelfLink, StringComparison.Ordinal)
        && string.Equals(ResourceId, other.ResourceId, StringComparison.Ordinal);

    /// <inheritdoc/>
    public override bool Equals(object? obj) => Equals(obj as DataEncryptionKeyProperties);

    /// <inheritdoc/>
    public override int GetHashCode() => HashCode.Combine(
        StringComparer.Ordinal.GetHashCode(Id),
        StringComparer.Ordinal.GetHashCode(EncryptionAlgorithm),
        EncryptionKeyWrapMetadata,
        CreatedTime,
        ETag is null ? 0 : StringComparer.Ordinal.GetHashCode(ETag));

    /// <inheritdoc/>
    public override string ToString() => $"DEK '{Id}' ({EncryptionAlgorithm}), wrapped by {EncryptionKeyWrapMetadata}";
}
