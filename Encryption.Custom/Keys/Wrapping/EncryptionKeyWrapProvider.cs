namespace Encryption.Custom;

/// <summary>
/// Wraps (encrypts) and unwraps (decrypts) data encryption keys with a key-encryption key (KEK) held somewhere
/// safer than the database: Azure Key Vault, or a local key for development.
/// </summary>
/// <remarks>
/// Implementations must not log, trace or put into exception messages the raw key bytes they receive or
/// return. Providers are expected to be safe for concurrent use.
/// </remarks>
public abstract class EncryptionKeyWrapProvider
{
    /// <summary>For subclasses (and mocking).</summary>
    protected EncryptionKeyWrapProvider()
    {
    }

    /// <summary>Wraps <paramref name="key"/> with the key-encryption key named by <paramref name="metadata"/>.</summary>
    /// <param name="key">The raw data encryption key. The provider only reads it; the caller zeroes it afterwards.</param>
    /// <param name="metadata">Names the key-encryption key and the wrap algorithm.</param>
    /// <param name="cancellationToken">Cancels the operation.</param>
    /// <returns>
    /// The wrapped key and the metadata to store with it. The metadata may be more specific than the input
    /// (for example a versioned Key Vault key identifier), so that unwrapping later uses exactly this KEK.
    /// </returns>
    /// <exception cref="ArgumentNullException"><paramref name="metadata"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="metadata"/> is not for this provider or names an unsupported algorithm.</exception>
    /// <exception cref="EncryptionException">The key-encryption key is unavailable or the wrap failed (<see cref="EncryptionErrorKind.KeyUnavailable"/>).</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public abstract Task<EncryptionKeyWrapResult> WrapKeyAsync(
        ReadOnlyMemory<byte> key,
        EncryptionKeyWrapMetadata metadata,
        CancellationToken cancellationToken = default);

    /// <summary>Unwraps <paramref name="wrappedKey"/> with the key-encryption key named by <paramref name="metadata"/>.</summary>
    /// <param name="wrappedKey">The wrapped data encryption key.</param>
    /// <param name="metadata">The metadata stored with the wrapped key.</param>
    /// <param name="cancellationToken">Cancels the operation.</param>
    /// <returns>
    /// The raw key and how long it may be cached. The caller owns the result and disposes it, which zeroes the key.
    /// </returns>
    /// <exception cref="ArgumentNullException"><paramref name="metadata"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="metadata"/> is not for this provider or names an unsupported algorithm.</exception>
    /// <exception cref="EncryptionException">The key-encryption key is unavailable or the wrapped key does not unwrap (<see cref="EncryptionErrorKind.KeyUnavailable"/>).</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public abstract Task<EncryptionKeyUnwrapResult> UnwrapKeyAsync(
        ReadOnlyMemory<byte> wrappedKey,
        EncryptionKeyWrapMetadata metadata,
        CancellationToken cancellationToken = default);
}
