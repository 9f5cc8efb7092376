using System.Runtime.CompilerServices;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Json.Streaming;

/// <summary>Asks an <see cref="Encryptor"/> for a document's key and checks what comes back.</summary>
internal static class KeyResolver
{
    /// <exception cref="EncryptionException">The key is unavailable or for another algorithm.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public static async ValueTask<DataEncryptionKey> ResolveAsync(Encryptor encryptor, string keyId, string algorithm, CancellationToken cancellationToken)
    {
        DataEncryptionKey key = await encryptor.GetEncryptionKeyAsync(keyId, algorithm, cancellationToken).ConfigureAwait(false);
        return Check(key, keyId, algorithm);
    }

    /// <summary>
    /// Resolves synchronously: free when the encryptor answers from its cache (a completed <see cref="ValueTask{T}"/>),
    /// otherwise this thread waits for the lookup.
    /// </summary>
    /// <exception cref="EncryptionException">The key is unavailable or for another algorithm.</exception>
    public static DataEncryptionKey Resolve(Encryptor encryptor, string keyId, string algorithm)
    {
        ValueTask<DataEncryptionKey> pending = encryptor.GetEncryptionKeyAsync(keyId, algorithm, CancellationToken.None);
        DataEncryptionKey key = pending.IsCompletedSuccessfully ? pending.Result : pending.AsTask().GetAwaiter().GetResult();
        return Check(key, keyId, algorithm);
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
