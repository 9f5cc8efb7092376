using Encryption.Custom.Keys;

namespace Encryption.Custom;

/// <summary>Gets data encryption keys by id, for a <see cref="CosmosEncryptor"/>.</summary>
public abstract class DataEncryptionKeyProvider
{
    /// <summary>For subclasses (and mocking).</summary>
    protected DataEncryptionKeyProvider()
    {
    }

    /// <summary>Gets the data encryption key with the given id, ready for <paramref name="encryptionAlgorithm"/>.</summary>
    /// <param name="id">The DEK id.</param>
    /// <param name="encryptionAlgorithm">The algorithm (see <see cref="CosmosEncryptionAlgorithm"/>).</param>
    /// <param name="cancellationToken">Cancels the wait (a shared fetch in progress continues for other callers).</param>
    /// <returns>The key, owned by the provider: callers must not dispose it.</returns>
    /// <exception cref="ArgumentException"><paramref name="id"/> or <paramref name="encryptionAlgorithm"/> is null or empty.</exception>
    /// <exception cref="EncryptionException">
    /// The key is unknown or cannot be unwrapped (<see cref="EncryptionErrorKind.KeyUnavailable"/>), or the
    /// algorithm is not one the key can serve (<see cref="EncryptionErrorKind.InvalidOptions"/>).
    /// </exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public abstract ValueTask<DataEncryptionKey> FetchDataEncryptionKeyAsync(
        string id,
        string encryptionAlgorithm,
        CancellationToken cancellationToken = default);

    /// <summary>
    /// Microsoft's package's name for fetching a key whose material is unwrapped later. This library has one kind
    /// of key (its material unwrapped once and kept in protected native memory), so this returns what
    /// <see cref="FetchDataEncryptionKeyAsync"/> returns; it exists so code written for Microsoft's package, which
    /// calls or overrides it, compiles. Override <see cref="FetchDataEncryptionKeyAsync"/> in new providers.
    /// </summary>
    /// <param name="id">The DEK id.</param>
    /// <param name="encryptionAlgorithm">The algorithm (see <see cref="CosmosEncryptionAlgorithm"/>).</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>The key, owned by the provider: callers must not dispose it.</returns>
    /// <exception cref="ArgumentException"><paramref name="id"/> or <paramref name="encryptionAlgorithm"/> is null or empty.</exception>
    /// <exception cref="EncryptionException">As <see cref="FetchDataEncryptionKeyAsync"/>.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public virtual ValueTask<DataEncryptionKey> FetchDataEncryptionKeyWithoutRawKeyAsync(
        string id,
        string encryptionAlgorithm,
        CancellationToken cancellationToken = default) =>
        FetchDataEncryptionKeyAsync(id, encryptionAlgorithm, cancellationToken);

    /// <summary>
    /// Gets the key with a lease on it (see <see cref="Encryptor.LeaseEncryptionKeyAsync"/>). Providers with a cache
    /// lease inside it; any other provider's answer is leased at once.
    /// </summary>
    /// <exception cref="ObjectDisposedException">The provider handed out a key it had already disposed.</exception>
    internal virtual ValueTask<DataEncryptionKeyLease> LeaseDataEncryptionKeyAsync(string id, string encryptionAlgorithm, CancellationToken cancellationToken)
    {
        ValueTask<DataEncryptionKey> pending = FetchDataEncryptionKeyAsync(id, encryptionAlgorithm, cancellationToken);
        return pending.IsCompletedSuccessfully
            ? new ValueTask<DataEncryptionKeyLease>(DataEncryptionKeyLease.Acquire(pending.Result))
            : LeaseWhenAnsweredAsync(pending);

        static async ValueTask<DataEncryptionKeyLease> LeaseWhenAnsweredAsync(ValueTask<DataEncryptionKey> pending) =>
            DataEncryptionKeyLease.Acquire(await pending.ConfigureAwait(false));
    }
}
