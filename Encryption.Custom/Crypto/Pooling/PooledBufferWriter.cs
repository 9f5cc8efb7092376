using System.Buffers;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;

namespace Encryption.Custom.Crypto.Pooling;

/// <summary>
/// An <see cref="IBufferWriter{T}"/> over one array rented from <see cref="ArrayPool{T}.Shared"/>. It may hold
/// plaintext, so every byte it wrote is zeroed before its array goes back to the pool (on growth, on
/// <see cref="Clear"/>, on <see cref="Truncate"/> and on <see cref="Dispose"/>).
/// </summary>
/// <remarks>
/// Not thread-safe. <see cref="Dispose"/> is idempotent and leaves the instance reusable (the next write rents
/// again), which lets <see cref="PooledBufferWriterPool"/> recycle instances. Bytes that a caller writes into a
/// span from <see cref="GetSpan"/> without advancing over them are outside the written region and are not
/// cleared: callers that put secrets there must advance or clear them.
/// </remarks>
internal sealed class PooledBufferWriter : IBufferWriter<byte>, IDisposable
{
    private const int MinimumRentLength = 256;
    private const int DefaultStreamChunk = 16 * 1024;

    private byte[] _buffer;
    private int _written;

    public PooledBufferWriter()
    {
        _buffer = [];
    }

    public PooledBufferWriter(int initialCapacity)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(initialCapacity);
        _buffer = initialCapacity == 0 ? [] : ArrayPool<byte>.Shared.Rent(initialCapacity);
    }

    /// <summary>The number of bytes written so far.</summary>
    public int WrittenCount => _written;

    /// <summary>The size of the current array.</summary>
    public int Capacity => _buffer.Length;

    /// <summary>The bytes written so far.</summary>
    public ReadOnlySpan<byte> WrittenSpan => _buffer.AsSpan(0, _written);

    /// <summary>The bytes written so far.</summary>
    public ReadOnlyMemory<byte> WrittenMemory => _buffer.AsMemory(0, _written);

    /// <inheritdoc/>
    public void Advance(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(count, _buffer.Length - _written);
        _written += count;
    }

    /// <inheritdoc/>
    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        EnsureFree(sizeHint);
        return _buffer.AsMemory(_written);
    }

    /// <inheritdoc/>
    public Span<byte> GetSpan(int sizeHint = 0)
    {
        EnsureFree(sizeHint);
        return _buffer.AsSpan(_written);
    }

    /// <summary>Appends <paramref name="source"/>.</summary>
    public void Write(ReadOnlySpan<byte> source)
    {
        EnsureFree(source.Length);
        source.CopyTo(_buffer.AsSpan(_written));
        _written += source.Length;
    }

    /// <summary>Zeroes the written bytes and starts over; the array is kept.</summary>
    public void Clear() => Truncate(0);

    /// <summary>Drops (and zeroes) everything written after the first <paramref name="length"/> bytes.</summary>
    public void Truncate(int length)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(length, _written);
        CryptographicOperations.ZeroMemory(_buffer.AsSpan(length, _written - length));
        _written = length;
    }

    /// <summary>
    /// Reads <paramref name="stream"/> to its end, appending to what is written. The array grows only when it
    /// is full (a short read never grows it).
    /// </summary>
    /// <param name="stream">The stream to read.</param>
    /// <param name="maxLength">The most bytes this writer may hold in total.</param>
    /// <param name="cancellationToken">Checked before every read.</param>
    /// <returns><see langword="false"/> when the stream holds more than <paramref name="maxLength"/> bytes (reading stops there).</returns>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<bool> AppendFromStreamAsync(Stream stream, int maxLength, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(stream);
        ArgumentOutOfRangeException.ThrowIfNegative(maxLength);

        // A known length lets one rent fit the whole stream; the extra byte detects an over-long or growing stream.
        long limit = Math.Min(maxLength, Array.MaxLength - 1) + 1L;
        long initial = DefaultStreamChunk;
        if (stream.CanSeek)
        {
            initial = Math.Max(stream.Length - stream.Position + 1, 1);
        }

        EnsureFree((int)Math.Clamp(Math.Min(initial, limit - _written), 1, Array.MaxLength));
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (_written == _buffer.Length)
            {
                if (_written >= limit)
                {
                    return false;
                }

                // Full: double, but never past the limit (plus the detecting byte).
                EnsureFree((int)Math.Min(_buffer.Length, limit - _written));
            }

            int read = await stream.ReadAsync(_buffer.AsMemory(_written), cancellationToken).ConfigureAwait(false);
            if (read == 0)
            {
                return _written <= maxLength;
            }

            _written += read;
            if (_written > maxLength)
            {
                return false;
            }
        }
    }

    /// <summary>Zeroes the written bytes and returns the array to the pool. Idempotent; the instance stays usable.</summary>
    public void Dispose()
    {
        byte[] buffer = _buffer;
        if (buffer.Length == 0)
        {
            return;
        }

        CryptographicOperations.ZeroMemory(buffer.AsSpan(0, _written));
        _written = 0;
        _buffer = [];
        ArrayPool<byte>.Shared.Return(buffer);
    }

    private void EnsureFree(int sizeHint)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(sizeHint);
        int free = _buffer.Length - _written;
        if (sizeHint == 0)
        {
            sizeHint = 1;
        }

        if (sizeHint > free)
        {
            Grow(sizeHint);
        }
    }

    private void Grow(int sizeHint)
    {
        long needed = (long)_written + sizeHint;
        if (needed > Array.MaxLength)
        {
            throw new InvalidOperationException("The buffer cannot grow beyond the largest array size.");
        }

        // Doubling keeps the number of copies logarithmic in the final size.
        long doubled = Math.Max((long)_buffer.Length * 2, MinimumRentLength);
        int newLength = (int)Math.Min(Math.Max(needed, doubled), Array.MaxLength);
        byte[] newBuffer = ArrayPool<byte>.Shared.Rent(newLength);
        Debug.Assert(newBuffer.Length >= needed, "The pool returned a short array.");

        byte[] old = _buffer;
        old.AsSpan(0, _written).CopyTo(newBuffer);
        _buffer = newBuffer;
        if (old.Length != 0)
        {
            CryptographicOperations.ZeroMemory(old.AsSpan(0, _written));
            ArrayPool<byte>.Shared.Return(old);
        }
    }
}
