using System.Runtime.InteropServices;
using Encryption.Custom.Crypto.Pooling;

namespace Encryption.Custom.Cosmos.Streams;

/// <summary>
/// A read-only response body over a pooled buffer that holds a decrypted document or page. Disposing it zeroes
/// the buffer and returns it to the pool; the SDK's deserializers and response messages dispose their content,
/// so plaintext does not linger in pooled memory.
/// </summary>
/// <remarks>
/// It is a <see cref="MemoryStream"/> whose buffer is not publicly visible, on purpose: the SDK's feed
/// deserializer disposes the content stream before it reads the slice it took from it, and it only keeps a
/// reference to a <see cref="MemoryStream"/>'s buffer when <see cref="MemoryStream.TryGetBuffer"/> succeeds;
/// otherwise it copies (<see cref="MemoryStream.ToArray"/>) first, which is what makes returning the buffer
/// on dispose safe. Use after dispose throws <see cref="ObjectDisposedException"/>.
/// </remarks>
internal sealed class PooledContentStream : MemoryStream
{
    private PooledBufferWriter? _buffer;

    /// <summary>Takes ownership of <paramref name="buffer"/> (rented from <see cref="PooledBufferWriterPool"/>).</summary>
    public PooledContentStream(PooledBufferWriter buffer)
        : base(ArrayOf(buffer), 0, buffer.WrittenCount, writable: false, publiclyVisible: false)
    {
        _buffer = buffer;
    }

    /// <summary>The whole content, independent of <see cref="MemoryStream.Position"/>; valid until disposed.</summary>
    public ReadOnlyMemory<byte> Content
    {
        get
        {
            ObjectDisposedException.ThrowIf(_buffer is null, this);
            return _buffer.WrittenMemory;
        }
    }

    /// <summary>A read-only stream over the same bytes that does not own them, valid until this stream is disposed.</summary>
    public MemoryStream CreateView()
    {
        bool exposed = MemoryMarshal.TryGetArray(Content, out ArraySegment<byte> segment);
        System.Diagnostics.Debug.Assert(exposed, "A pooled buffer is array-backed.");
        return new MemoryStream(segment.Array ?? [], segment.Offset, segment.Count, writable: false);
    }

    protected override void Dispose(bool disposing)
    {
        base.Dispose(disposing);
        PooledBufferWriter? buffer = Interlocked.Exchange(ref _buffer, null);
        if (buffer is not null)
        {
            PooledBufferWriterPool.Return(buffer);
        }
    }

    private static byte[] ArrayOf(PooledBufferWriter buffer)
    {
        if (buffer.WrittenCount == 0)
        {
            return [];
        }

        bool isArray = MemoryMarshal.TryGetArray(buffer.WrittenMemory, out ArraySegment<byte> segment);
        System.Diagnostics.Debug.Assert(isArray && segment.Offset == 0, "A pooled buffer writer writes from the start of an array.");
        return segment.Array!;
    }
}
