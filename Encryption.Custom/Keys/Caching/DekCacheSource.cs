namespace Encryption.Custom.Keys.Caching;

/// <summary>Where the <see cref="DekCache"/> gets what it caches: DEK documents and unwrapped keys.</summary>
internal abstract class DekCacheSource
{
    /// <summary>Reads the DEK document (bypassing every cache).</summary>
    /// <exception cref="EncryptionException">The DEK does not exist or its document is invalid.</exception>
    public abstract Task<DataEncryptionKeyProperties> ReadPropertiesAsync(string id, CancellationToken cancellationToken);

    /// <summary>Unwraps the DEK's wrapped key with its key-encryption key.</summary>
    public abstract Task<EncryptionKeyUnwrapResult> UnwrapAsync(DataEncryptionKeyProperties properties, CancellationToken cancellationToken);
}
