using System.Runtime.CompilerServices;

namespace Encryption.Custom.Json.Streaming;

/// <summary>Asks an <see cref="Encryptor"/> for a document's key, checks what comes back, and pins it.</summary>
/// <remarks>
/// The encryptor owns its keys and may dispose one between handing it out and our pin; that race is retried once
/// (the next lookup loads the key again). A key disposed before the lookup even answered fails as disposed.
/// </remarks>
internal static class KeyResolver
{
    private const int Attempts = 2;

    /// <exception cref="EncryptionException">The key is unavailable or for another algorithm.</exception>
    /// <exception cref="ObjectDisposedException">The encryptor handed out disposed keys twice.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public static async ValueTask<PinnedKey> ResolvePinnedAsync(Encryptor encryptor, string keyId, string algorithm, CancellationToken cancellationToken)
    {
        for (int attempt = 1; ; attempt++)
        {
            DataEncryptionKey key = await encryptor.GetEncryptionKeyAsync(keyId, algorithm, cancellationToken).ConfigureAwait(false);
            if (TryPin(Check(key, keyId, algorithm), attempt, out PinnedKey pinned))
            {
                return pinned;
            }
        }
    }

    /// <summary>
    /// Resolves synchronously: free when the encryptor answers from its cache (a completed <see cref="ValueTask{T}"/>),
    /// otherwise this thread waits for the lookup.
    /// </summary>
    /// <exception cref="EncryptionException">The key is unavailable or for another algorithm.</exception>
    /// <exception cref="ObjectDisposedException">The encryptor handed out disposed keys twice.</exception>
    public static PinnedKey ResolvePinned(Encryptor encryptor, string keyId, string algorithm)
    {
        for (int attempt = 1; ; attempt++)
        {
            ValueTask<DataEncryptionKey> pending = encryptor.GetEncryptionKeyAsync(keyId, algorithm, CancellationToken.None);
            DataEncryptionKey key = pending.IsCompletedSuccessfully ? pending.Result : pending.AsTask().GetAwaiter().GetResult();
            if (TryPin(Check(key, keyId, algorithm), attempt, out PinnedKey pinned))
            {
                return pinned;
            }
        }
    }

    /// <summary>Pins a key the caller supplied (no lookup to retry).</summary>
    /// <exception cref="ObjectDisposedException">The key was disposed.</exception>
    public static PinnedKey Pin(DataEncryptionKey key) => new(key, key.Pin());

    private static bool TryPin(DataEncryptionKey key, int attempt, out PinnedKey pinned)
    {
        try
        {
            pinned = new PinnedKey(key, key.Pin());
            return true;
        }
        catch (ObjectDisposedException) when (attempt < Attempts)
        {
            pinned = default;
            return false;
        }
    }

    private static DataEncryptionKey Check(DataEncryptionKey? key, string keyId, string algorithm)
    {
        if (key is null)
        {
            JsonErrors.ThrowKeyMissing(keyId);
        }

        // Derived keys differ per algorithm (labels): a key for the other one would fail every tag check.
        if (!string.Equals(key.EncryptionAlgorithm, algorithm, StringComparison.Ordinal))
        {
            JsonErrors.ThrowKeyAlgorithmMismatch(key.EncryptionAlgorithm, algorithm, keyId);
        }

        return key;
    }
}
