namespace Encryption.Custom.Tests.TestSupport;

/// <summary>
/// A write-only, non-seekable destination that sends what it is given in small chunks and, like a network
/// stream, checks the caller's token before each chunk: cancellation in the middle of a write leaves a prefix sent.
/// </summary>
public sealed class SocketLikeStream : Stream
{
    private readonly MemoryStream _sent = new();
    private readonly int _chunkSize;

    public SocketLikeStream(int chunkSize = 8) => _chunkSize = chunkSize;

    /// <summary>Called after the first chunk went out (for example to cancel the operation's token).</summary>
    public Action? AfterFirstChunk { get; set; }

    /// <summary>Everything sent so far.</summary>
    public byte[] Sent => _sent.ToArray();

    public override bool CanRead => false;

    public override bool CanSeek => false;

    public override bool CanWrite => true;

    public override long Length => throw new NotSupportedException();

    public override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    public override async ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
    {
        for (int offset = 0; offset < buffer.Length; offset += _chunkSize)
        {
            cancellationToken.ThrowIfCancellationRequested();
            await Task.Yield();
            _sent.Write(buffer.Span.Slice(offset, Math.Min(_chunkSize, buffer.Length - offset)));
            if (offset == 0)
            {
                AfterFirstChunk?.Invoke();
            }
        }
    }

    public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        WriteAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    public override void Write(byte[] buffer, int offset, int count) => WriteAsync(buffer, offset, count, CancellationToken.None).GetAwaiter().GetResult();

    public override void Flush()
    {
    }

    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    protected override void Dispose(bool disposing)
    {
        _sent.Dispose();
        base.Dispose(disposing);
    }
}
