namespace Encryption.Custom.Tests.TestSupport;

/// <summary>
/// A read-only, non-seekable stream that hands out at most <c>chunkSize</c> bytes per read (one by default),
/// yielding on asynchronous reads: the worst case for buffering code.
/// </summary>
public sealed class TricklingStream : Stream
{
    private readonly byte[] _content;
    private readonly int _chunkSize;
    private int _position;

    public TricklingStream(byte[] content, int chunkSize = 1)
    {
        _content = content;
        _chunkSize = chunkSize;
    }

    /// <summary>How many reads were answered.</summary>
    public int Reads { get; private set; }

    /// <summary>Cancels this token after the given number of reads (to test cancellation between chunks).</summary>
    public CancellationTokenSource? CancelAfterReads { get; set; }

    public int CancelAfter { get; set; } = int.MaxValue;

    public override bool CanRead => true;

    public override bool CanSeek => false;

    public override bool CanWrite => false;

    public override long Length => throw new NotSupportedException();

    public override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    public override void Flush()
    {
    }

    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    public override int Read(Span<byte> buffer)
    {
        Reads++;
        if (Reads >= CancelAfter)
        {
            CancelAfterReads?.Cancel();
        }

        int count = Math.Min(Math.Min(_chunkSize, buffer.Length), _content.Length - _position);
        _content.AsSpan(_position, count).CopyTo(buffer);
        _position += count;
        return count;
    }

    public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
    {
        await Task.Yield();
        cancellationToken.ThrowIfCancellationRequested();
        return Read(buffer.Span);
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}
