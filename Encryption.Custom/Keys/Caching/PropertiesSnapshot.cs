namespace Encryption.Custom.Keys.Caching;

/// <summary>A DEK document with its expiry (in the cache's clock units). Immutable, swapped whole.</summary>
internal sealed class PropertiesSnapshot(DataEncryptionKeyProperties properties, long expiresAt)
{
    public DataEncryptionKeyProperties Properties { get; } = properties;

    public long ExpiresAt { get; } = expiresAt;
}
