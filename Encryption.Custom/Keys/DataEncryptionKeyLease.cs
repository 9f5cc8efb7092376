using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;

namespace Encryption.Custom.Keys;

/// <summary>
/// One reference on a <see cref="DataEncryptionKey"/> for one operation (a document, a feed page document, a
/// patch): while it is held, the key stays usable even if its owner, such as a cache evicting it, disposes it.
/// The DEK cache hands these out, the key lookups of the processors return them, and whoever receives one
/// disposes it exactly once (copies share the one reference). A struct: taking one costs an interlocked
/// operation and no allocation.
/// </summary>
internal readonly struct DataEncryptionKeyLease : IDisposable
{
    private DataEncryptionKeyLease(DataEncryptionKey key) => Key = key;

    /// <summary>The leased key; null only for a default lease (an encryptor that answered with no key).</summary>
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    public DataEncryptionKey Key { get; }

    /// <summary>Leases <paramref name="key"/>; false once its owner has disposed it.</summary>
    public static bool TryAcquire(DataEncryptionKey key, out DataEncryptionKeyLease lease)
    {
        if (key.TryAddReference())
        {
            lease = new DataEncryptionKeyLease(key);
            return true;
        }

        lease = default;
        return false;
    }

    /// <summary>Leases <paramref name="key"/> (a default lease for null).</summary>
    /// <exception cref="ObjectDisposedException">The key's owner has disposed it.</exception>
    public static DataEncryptionKeyLease Acquire(DataEncryptionKey? key)
    {
        if (key is null)
        {
            return default;
        }

        if (!key.TryAddReference())
        {
            ThrowDisposed(key);
        }

        return new DataEncryptionKeyLease(key);
    }

    /// <summary>Wraps a reference the caller has already taken (the DEK cache reserves one per waiter of a load).</summary>
    internal static DataEncryptionKeyLease Adopt(DataEncryptionKey key) => new(key);

    /// <summary>Gives the reference back; the key is released if its owner has disposed it and this was the last one.</summary>
    public void Dispose() => Key?.ReleaseReference();

    [DoesNotReturn]
    private static void ThrowDisposed(DataEncryptionKey key) => throw new ObjectDisposedException(key.GetType().FullName);
}
