using System.Buffers;
using System.Security.Cryptography;

namespace Encryption.Custom.Crypto.Pooling;

/// <summary>
/// A seekable, growable in-memory <see cref="Stream"/> over one array rented from <see cref="ArrayPool{T}.Shared"/>.
/// Meant for bodies that hold plaintext (a decrypted document handed to the caller): every byte it held is
/// zeroed before the array goes back to the pool, when it grows and when it is disposed.
/// </summary>
/// <remarks>Not thread-safe. <see cref="Stream.Dispose()"/> is idempotent; use after dispose throws <see cref="ObjectDisposedException"/>.</remarks>
internal sealed class PooledMemoryStream : Stream
{
    private byte[] _buffer;
    private int _length;
    private int _position;
    private bool _disposed;

    public PooledMemoryStream()
    {
        _buffer = [];
    }

    public PooledMemoryStream(int capacity)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(capacity);
        _buffer = capacity == 0 ? [] : ArrayPool<byte>.Shared.Rent(capacity);
    }

    public override bool CanRead => !_disposed;

    public override bool CanSeek => !_disposed;

    public override bool CanWrite => !_disposed;

    public override long Length
    {
        get
        {
            ThrowIfDisposed();
            return _length;
        }
    }

    public override long Position
    {
        get
        {
            ThrowIfDisposed();
            return _position;
        }

        set
        {
            ThrowIfDisposed();
            ArgumentOutOfRangeException.ThrowIfNegative(value);
            ArgumentOutOfRangeException.ThrowIfGreaterThan(value, (long)Array.MaxLength);
            _position = (int)value;
        }
    }

    /// <summary>The whole content (independent of <see cref="Position"/>); valid until the next write or dispose.</summary>
    public ReadOnlySpan<byte> GetContent()
    {
        ThrowIfDisposed();
        return _buffer.AsSpan(0, _length);
    }

    /// <summary>The whole content as memory; valid until the next write or dispose.</summary>
    public ReadOnlyMemory<byte> GetContentMemory()
    {
        ThrowIfDisposed();
        return _buffer.AsMemory(0, _length);
    }

    public override void Flush()
    {
    }

    public override Task FlushAsync(CancellationToken cancellationToken) =>
        cancellationToken.IsCancellationRequested ? Task.FromCanceled(cancellationToken) : Task.CompletedTask;

    public override int Read(byte[] buffer, int offset, int count)
    {
        ValidateBufferArguments(buffer, offset, count);
        return Read(buffer.AsSpan(offset, count));
    }

    public override int Read(Span<byte> buffer)
    {
        ThrowIfDisposed();
        int available = Math.Max(_length - _position, 0);
        int count = Math.Min(available, buffer.Length);
        _buffer.AsSpan(_position, count).CopyTo(buffer);
        _position += count;
        return count;
    }

    public override int ReadByte()
    {
        ThrowIfDisposed();
        return _position < _length ? _buffer[_position++] : -1;
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
    {
        ValidateBufferArguments(buffer, offset, count);
        return cancellationToken.IsCancellationRequested
            ? Task.FromCanceled<int>(cancellationToken)
            : Task.FromResult(Read(buffer.AsSpan(offset, count)));
    }

    public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) =>
        cancellationToken.IsCancellationRequested
            ? ValueTask.FromCanceled<int>(cancellationToken)
            : new ValueTask<int>(Read(buffer.Span));

    public override long Seek(long offset, SeekOrigin origin)
    {
        ThrowIfDisposed();
        long target = origin switch
        {
            SeekOrigin.Begin => offset,
            SeekOrigin.Current => _position + offset,
            SeekOrigin.End => _length + offset,
            _ => throw new ArgumentOutOfRangeException(nameof(origin)),
        };

        if (target < 0)
        {
            throw new IOException("An attempt was made to move the position before the beginning of the stream.");
        }

        ArgumentOutOfRangeException.ThrowIfGreaterThan(target, (long)Array.MaxLength, nameof(offset));
        _position = (int)target;
        return target;
    }

    public override void SetLength(long value)
    {
        ThrowIfDisposed();
        ArgumentOutOfRangeException.ThrowIfNegative(value);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(value, (long)Array.MaxLength);
        int newLength = (int)value;
        if (newLength > _length)
        {
            EnsureCapacity(newLength);
            _buffer.AsSpan(_length, newLength - _length).Clear();
        }
        else
        {
            CryptographicOperations.ZeroMemory(_buffer.AsSpan(newLength, _length - newLength));
        }

        _length = newLength;
        _position = Math.Min(_position, newLength);
    }

    public override void Write(byte[] buffer, int offset, int count)
    {
        ValidateBufferArguments(buffer, offset, count);
        Write(buffer.AsSpan(offset, count));
    }

    public override void Write(ReadOnlySpan<byte> buffer)
    {
        ThrowIfDisposed();
        long end = (long)_position + buffer.Length;
        if (end > Array.MaxLength)
        {
            throw new IOException("The stream cannot grow beyond the largest array size.");
        }

        EnsureCapacity((int)end);
        if (_position > _length)
        {
            // Writing past the end leaves a gap that must read as zeros.
            _buffer.AsSpan(_length, _position - _length).Clear();
        }

        buffer.CopyTo(_buffer.AsSpan(_position));
        _position = (int)end;
        _length = Math.Max(_length, _position);
    }

    public override void WriteByte(byte value) => Write([value]);

    public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
    {
        ValidateBufferArguments(buffer, offset, count);
        if (cancellationToken.IsCancellationRequested)
        {
            return Task.FromCanceled(cancellationToken);
        }

        Write(buffer.AsSpan(offset, count));
        return Task.CompletedTask;
    }

    public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled(cancellationToken);
        }

        Write(buffer.Span);
        return ValueTask.CompletedTask;
    }

    protected override void Dispose(bool disposing)
    {
        if (!_disposed)
        {
            _disposed = true;
            byte[] buffer = _buffer;
            _buffer = [];
            if (buffer.Length != 0)
            {
                CryptographicOperations.ZeroMemory(buffer.AsSpan(0, _length));
                ArrayPool<byte>.Shared.Return(buffer);
            }

            _length = 0;
            _position = 0;
        }

        base.Dispose(disposing);
    }

    private void EnsureCapacity(int capacity)
    {
        if (capacity <= _buffer.Length)
        {
            return;
        }

        int newCapacity = (int)Math.Min(Math.Max((long)_buffer.Length * 2, Math.Max(capacity, 256)), Array.MaxLength);
        byte[] newBuffer = ArrayPool<byte>.Shared.Rent(newCapacity);
        byte[] old = _buffer;
        old.AsSpan(0, _length).CopyTo(newBuffer);
        _buffer = newBuffer;
        if (old.Length != 0)
        {
            CryptographicOperations.ZeroMemory(old.AsSpan(0, _length));
            ArrayPool<byte>.Shared.Return(old);
        }
    }

    private void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(_disposed, this);
}
