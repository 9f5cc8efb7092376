namespace Encryption.Custom;

/// <summary>
/// Supplies data encryption keys by id and algorithm. The JSON processors and the encryption container ask it
/// for the key named in a request or in a document's metadata.
/// </summary>
public abstract class Encryptor
{
    /// <summary>For subclasses (and mocking).</summary>
    protected Encryptor()
    {
    }

    /// <summary>Gets the data encryption key with the given id for the given algorithm.</summary>
    /// <param name="dataEncryptionKeyId">The DEK id.</param>
    /// <param name="encryptionAlgorithm">The algorithm (see <see cref="CosmosEncryptionAlgorithm"/>).</param>
    /// <param name="cancellationToken">Cancels the lookup.</param>
    /// <returns>
    /// The key. It stays owned by the encryptor: callers must not dispose it. It may be disposed when the
    /// encryptor evicts it; an operation that spans several calls pins it first.
    /// </returns>
    /// <exception cref="EncryptionException">The key is unknown, cannot be unwrapped, or is for another algorithm (<see cref="EncryptionErrorKind.KeyUnavailable"/>).</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public abstract ValueTask<DataEncryptionKey> GetEncryptionKeyAsync(
        string dataEncryptionKeyId,
        string encryptionAlgorithm,
        CancellationToken cancellationToken = default);

    /// <summary>Encrypts <paramref name="plainText"/> with the named key.</summary>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="EncryptionException">The key is unavailable.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public virtual async Task<byte[]> EncryptAsync(
        byte[] plainText,
        string dataEncryptionKeyId,
        string encryptionAlgorithm,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(plainText);
        DataEncryptionKey key = await GetEncryptionKeyAsync(dataEncryptionKeyId, encryptionAlgorithm, cancellationToken).ConfigureAwait(false);
        return key.EncryptData(plainText);
    }

    /// <summary>Authenticates and decrypts <paramref name="cipherText"/> with the named key.</summary>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="EncryptionException">The key is unavailable or the ciphertext is not authentic.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public virtual async Task<byte[]> DecryptAsync(
        byte[] cipherText,
        string dataEncryptionKeyId,
        string encryptionAlgorithm,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(cipherText);
        DataEncryptionKey key = await GetEncryptionKeyAsync(dataEncryptionKeyId, encryptionAlgorithm, cancellationToken).ConfigureAwait(false);
        return key.DecryptData(cipherText);
    }
}
