using System.Diagnostics;
using System.Security.Cryptography;

namespace Encryption.Custom;

/// <summary>
/// What <see cref="EncryptionKeyWrapProvider.UnwrapKeyAsync"/> returns: the raw data encryption key and how long
/// it may be cached. Owns the key buffer and zeroes it on <see cref="Dispose"/>.
/// </summary>
/// <remarks>
/// Providers should allocate the buffer with <see cref="GC.AllocateUninitializedArray{T}(int, bool)"/> and
/// <c>pinned: true</c> so that the garbage collector never leaves copies of the key behind when it compacts the heap.
/// </remarks>
public sealed class EncryptionKeyUnwrapResult : IDisposable
{
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    private byte[]? _dataEncryptionKey;

    /// <summary>Creates an unwrap result that takes ownership of <paramref name="dataEncryptionKey"/>.</summary>
    /// <param name="dataEncryptionKey">The raw key. The result zeroes it on dispose; the provider must not keep or modify it.</param>
    /// <param name="clientCacheTimeToLive">
    /// How long the raw key may be used before the provider must be asked again: non-negative, or
    /// <see cref="Timeout.InfiniteTimeSpan"/> for no limit. <see cref="TimeSpan.Zero"/> means that every use asks again.
    /// </param>
    /// <exception cref="ArgumentNullException"><paramref name="dataEncryptionKey"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="clientCacheTimeToLive"/> is negative and not infinite.</exception>
    public EncryptionKeyUnwrapResult(byte[] dataEncryptionKey, TimeSpan clientCacheTimeToLive)
    {
        ArgumentNullException.ThrowIfNull(dataEncryptionKey);
        if (clientCacheTimeToLive < TimeSpan.Zero && clientCacheTimeToLive != Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(nameof(clientCacheTimeToLive), "The time to live must be non-negative or infinite.");
        }

        _dataEncryptionKey = dataEncryptionKey;
        ClientCacheTimeToLive = clientCacheTimeToLive;
    }

    /// <summary>The raw key. Valid until the result is disposed.</summary>
    /// <exception cref="ObjectDisposedException">The result was disposed.</exception>
    public ReadOnlySpan<byte> DataEncryptionKey => KeySpan;

    /// <summary>How long the raw key may be cached (<see cref="Timeout.InfiniteTimeSpan"/>: no limit).</summary>
    public TimeSpan ClientCacheTimeToLive { get; }

    /// <summary>The key as a writable span, for handing to a consumer that zeroes what it copies.</summary>
    internal Span<byte> KeySpan
    {
        get
        {
            ObjectDisposedException.ThrowIf(_dataEncryptionKey is null, this);
            return _dataEncryptionKey;
        }
    }

    /// <summary>Zeroes the key buffer. Idempotent.</summary>
    public void Dispose()
    {
        byte[]? key = Interlocked.Exchange(ref _dataEncryptionKey, null);
        if (key is not null)
        {
            CryptographicOperations.ZeroMemory(key);
        }
    }

    /// <inheritdoc/>
    public override string ToString() => $"{nameof(EncryptionKeyUnwrapResult)} (key hidden, time to live {ClientCacheTimeToLive})";
}
