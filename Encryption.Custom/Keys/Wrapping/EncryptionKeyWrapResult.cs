namespace Encryption.Custom;

/// <summary>What <see cref="EncryptionKeyWrapProvider.WrapKeyAsync"/> returns: the wrapped key and the metadata to store with it.</summary>
public sealed class EncryptionKeyWrapResult
{
    /// <summary>Creates a wrap result.</summary>
    /// <param name="wrappedDataEncryptionKey">The wrapped key (not secret: it is stored in the database).</param>
    /// <param name="encryptionKeyWrapMetadata">The metadata that unwraps it again.</param>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="wrappedDataEncryptionKey"/> is empty.</exception>
    public EncryptionKeyWrapResult(byte[] wrappedDataEncryptionKey, EncryptionKeyWrapMetadata encryptionKeyWrapMetadata)
    {
        ArgumentNullException.ThrowIfNull(wrappedDataEncryptionKey);
        ArgumentNullException.ThrowIfNull(encryptionKeyWrapMetadata);
        if (wrappedDataEncryptionKey.Length == 0)
        {
            throw new ArgumentException("The wrapped key is empty.", nameof(wrappedDataEncryptionKey));
        }

        WrappedDataEncryptionKey = wrappedDataEncryptionKey;
        EncryptionKeyWrapMetadata = encryptionKeyWrapMetadata;
    }

    /// <summary>The wrapped key.</summary>
    public ReadOnlyMemory<byte> WrappedDataEncryptionKey { get; }

    /// <summary>The metadata to store with the wrapped key.</summary>
    public EncryptionKeyWrapMetadata EncryptionKeyWrapMetadata { get; }
}
