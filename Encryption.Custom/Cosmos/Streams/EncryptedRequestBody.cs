using System.Runtime.InteropServices;
using Encryption.Custom.Crypto.Pooling;

namespace Encryption.Custom.Cosmos.Streams;

/// <summary>
/// A request body (encrypted, or a caller's body kept for resending) in a pooled buffer, handed to the SDK as a <see cref="MemoryStream"/> that exposes
/// its buffer (so the SDK neither copies it nor re-encrypts it when it retries: retries re-read these bytes).
/// </summary>
/// <remarks>
/// The buffer goes back to the pool (zeroed) when the operation has completed. With an availability strategy
/// the SDK may still send a hedged copy of the request after the first response came back, so such bodies are
/// never recycled: another request must never be able to reuse bytes the SDK might still read.
/// </remarks>
internal sealed class EncryptedRequestBody : IDisposable
{
    private readonly bool _recycle;
    private PooledBufferWriter? _buffer;

    public EncryptedRequestBody(PooledBufferWriter buffer, bool recycle)
    {
        _buffer = buffer;
        _recycle = recycle;
        bool exposed = MemoryMarshal.TryGetArray(buffer.WrittenMemory, out ArraySegment<byte> segment);
        System.Diagnostics.Debug.Assert(exposed, "A pooled buffer is array-backed.");
        Stream = new MemoryStream(segment.Array ?? [], segment.Offset, segment.Count, writable: false, publiclyVisible: true);
    }

    /// <summary>The body for the SDK (position 0).</summary>
    public MemoryStream Stream { get; }

    /// <summary>The encrypted bytes; valid until disposed.</summary>
    public ReadOnlyMemory<byte> Content => _buffer?.WrittenMemory ?? ReadOnlyMemory<byte>.Empty;

    /// <summary>The length of the encrypted body in bytes.</summary>
    public int Length => (int)Stream.Length;

    /// <summary>A new read-only stream over the body, positioned at 0 (for a request that may be sent again).</summary>
    public MemoryStream CreateStream()
    {
        bool exposed = MemoryMarshal.TryGetArray(Content, out ArraySegment<byte> segment);
        System.Diagnostics.Debug.Assert(exposed, "A pooled buffer is array-backed.");
        return new MemoryStream(segment.Array ?? [], segment.Offset, segment.Count, writable: false, publiclyVisible: true);
    }

    /// <summary>Copies a caller's (unencrypted) body, whole as the SDK would send it, into a pooled buffer, so that it can be sent more than once.</summary>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public static async ValueTask<EncryptedRequestBody> CopyAsync(Stream body, bool recycle, CancellationToken cancellationToken)
    {
        PooledBufferWriter buffer = PooledBufferWriterPool.Rent();
        try
        {
            await buffer.AppendFromStreamAsync(RequestPayload.FromStart(body), int.MaxValue - 1, cancellationToken).ConfigureAwait(false);
            return new EncryptedRequestBody(buffer, recycle);
        }
        catch
        {
            PooledBufferWriterPool.Return(buffer);
            throw;
        }
    }

    public void Dispose()
    {
        PooledBufferWriter? buffer = Interlocked.Exchange(ref _buffer, null);
        if (buffer is null)
        {
            return;
        }

        Stream.Dispose();
        if (_recycle)
        {
            PooledBufferWriterPool.Return(buffer);
        }
    }
}
