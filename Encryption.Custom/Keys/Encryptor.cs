using Encryption.Custom.Diagnostics;
using Encryption.Custom.Keys;

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
    /// The key. It stays owned by the encryptor: callers must not dispose it. The encryptor may dispose it when it
    /// evicts it; the library's operations hold a reference on it meanwhile, so the key is only released when they
    /// end, but a caller of this method that uses the key later may find it disposed.
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
        using DataEncryptionKeyLease lease = await LeaseEncryptionKeyAsync(dataEncryptionKeyId, encryptionAlgorithm, cancellationToken).ConfigureAwait(false);
        return RequireKey(lease, dataEncryptionKeyId).EncryptLeased(plainText);
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
        using DataEncryptionKeyLease lease = await LeaseEncryptionKeyAsync(dataEncryptionKeyId, encryptionAlgorithm, cancellationToken).ConfigureAwait(false);
        return RequireKey(lease, dataEncryptionKeyId).DecryptLeased(cipherText);
    }

    /// <summary>
    /// Gets the key with a lease on it: the one way the library's operations get keys. The standard encryptor leases
    /// inside its provider's cache, so an eviction at any moment cannot fail the operation; any other encryptor is
    /// asked through <see cref="GetEncryptionKeyAsync"/> and its answer leased at once. Completes synchronously, without
    /// allocating, when the key is cached.
    /// </summary>
    /// <returns>The lease (a default lease if the encryptor answered with no key); the caller disposes it.</returns>
    /// <exception cref="ObjectDisposedException">The encryptor handed out a key it had already disposed.</exception>
    internal virtual ValueTask<DataEncryptionKeyLease> LeaseEncryptionKeyAsync(string dataEncryptionKeyId, string encryptionAlgorithm, CancellationToken cancellationToken)
    {
        ValueTask<DataEncryptionKey> pending = GetEncryptionKeyAsync(dataEncryptionKeyId, encryptionAlgorithm, cancellationToken);
        return pending.IsCompletedSuccessfully
            ? new ValueTask<DataEncryptionKeyLease>(DataEncryptionKeyLease.Acquire(pending.Result))
            : LeaseWhenAnsweredAsync(pending);

        static async ValueTask<DataEncryptionKeyLease> LeaseWhenAnsweredAsync(ValueTask<DataEncryptionKey> pending) =>
            DataEncryptionKeyLease.Acquire(await pending.ConfigureAwait(false));
    }

    private static DataEncryptionKey RequireKey(DataEncryptionKeyLease lease, string dataEncryptionKeyId) =>
        lease.Key ?? throw new EncryptionException(
            EncryptionErrorKind.KeyUnavailable,
            $"The encryptor returned no data encryption key for '{UntrustedText.Shorten(dataEncryptionKeyId)}'.",
            dataEncryptionKeyId);
}
