using System.Runtime.CompilerServices;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// A whole input document (or page) in memory: either the buffer of a <see cref="MemoryStream"/> that exposes it
/// (no copy), or a pooled buffer the stream was read into (zeroed when disposed: it may hold plaintext).
/// </summary>
internal readonly struct InputBuffer : IDisposable
{
    private readonly PooledBufferWriter? _owner;

    private InputBuffer(ReadOnlyMemory<byte> memory, PooledBufferWriter? owner)
    {
        Memory = memory;
        _owner = owner;
    }

    public ReadOnlyMemory<byte> Memory { get; }

    /// <summary>Reads <paramref name="stream"/> from its position to its end.</summary>
    /// <exception cref="EncryptionException">The input is longer than <paramref name="maxLength"/> (<see cref="EncryptionErrorKind.LimitExceeded"/>).</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public static async ValueTask<InputBuffer> ReadAsync(Stream stream, int maxLength, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        if (TryGetExposedBuffer(stream, maxLength, out ReadOnlyMemory<byte> exposed))
        {
            return new InputBuffer(exposed, null);
        }

        PooledBufferWriter owner = PooledBufferWriterPool.Rent();
        try
        {
            if (!await owner.AppendFromStreamAsync(stream, maxLength, cancellationToken).ConfigureAwait(false))
            {
                JsonErrors.ThrowDocumentTooLarge(maxLength);
            }

            return new InputBuffer(owner.WrittenMemory, owner);
        }
        catch
        {
            PooledBufferWriterPool.Return(owner);
            throw;
        }
    }

    public void Dispose()
    {
        if (_owner is not null)
        {
            PooledBufferWriterPool.Return(_owner);
        }
    }

    private static bool TryGetExposedBuffer(Stream stream, int maxLength, out ReadOnlyMemory<byte> memory)
    {
        memory = default;
        ReadOnlyMemory<byte> content;
        long position;
        if (stream is MemoryStream memoryStream && memoryStream.TryGetBuffer(out ArraySegment<byte> segment))
        {
            content = segment;
            position = memoryStream.Position;
        }
        else if (stream is PooledMemoryStream pooled)
        {
            content = pooled.GetContentMemory();
            position = pooled.Position;
        }
        else
        {
            return false;
        }

        if (position >= content.Length)
        {
            memory = ReadOnlyMemory<byte>.Empty;
        }
        else
        {
            memory = content[(int)position..];
        }

        if (memory.Length > maxLength)
        {
            JsonErrors.ThrowDocumentTooLarge(maxLength);
        }

        // The caller's stream is consumed, as if it had been read.
        stream.Position = position + memory.Length;
        return true;
    }
}
