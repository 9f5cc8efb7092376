using Encryption.Custom.Json.Errors;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Json.Leasing;

/// <summary>Leases a document's key from an <see cref="Encryptor"/> and checks what comes back.</summary>
/// <remarks>
/// The lease is taken where the key is cached (see <see cref="Encryptor.LeaseEncryptionKeyAsync"/>), so an eviction
/// at any moment cannot fail the operation: there is nothing to retry.
/// </remarks>
internal static class KeyResolver
{
    /// <summary>Leases the key; the caller disposes the lease.</summary>
    /// <exception cref="EncryptionException">The key is unavailable or for another algorithm.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public static ValueTask<DataEncryptionKeyLease> LeaseAsync(Encryptor encryptor, string keyId, string algorithm, CancellationToken cancellationToken)
    {
        ValueTask<DataEncryptionKeyLease> pending = encryptor.LeaseEncryptionKeyAsync(keyId, algorithm, cancellationToken);
        return pending.IsCompletedSuccessfully
            ? new ValueTask<DataEncryptionKeyLease>(Check(pending.Result, keyId, algorithm))
            : CheckWhenLeasedAsync(pending, keyId, algorithm);

        static async ValueTask<DataEncryptionKeyLease> CheckWhenLeasedAsync(ValueTask<DataEncryptionKeyLease> pending, string keyId, string algorithm) =>
            Check(await pending.ConfigureAwait(false), keyId, algorithm);
    }

    /// <summary>
    /// Leases synchronously: free when the encryptor answers from its cache (a completed <see cref="ValueTask{T}"/>),
    /// otherwise this thread waits for the lookup.
    /// </summary>
    /// <exception cref="EncryptionException">The key is unavailable or for another algorithm.</exception>
    public static DataEncryptionKeyLease Lease(Encryptor encryptor, string keyId, string algorithm)
    {
        ValueTask<DataEncryptionKeyLease> pending = encryptor.LeaseEncryptionKeyAsync(keyId, algorithm, CancellationToken.None);
        DataEncryptionKeyLease lease = pending.IsCompletedSuccessfully ? pending.Result : pending.AsTask().GetAwaiter().GetResult();
        return Check(lease, keyId, algorithm);
    }

    private static DataEncryptionKeyLease Check(DataEncryptionKeyLease lease, string keyId, string algorithm)
    {
        DataEncryptionKey? key = lease.Key;
        if (key is null)
        {
            JsonErrors.ThrowKeyMissing(keyId);
        }

        // Derived keys differ per algorithm (labels): a key for the other one would fail every tag check.
        if (!string.Equals(key.EncryptionAlgorithm, algorithm, StringComparison.Ordinal))
        {
            lease.Dispose();
            JsonErrors.ThrowKeyAlgorithmMismatch(key.EncryptionAlgorithm, algorithm, keyId);
        }

        return lease;
    }
}
