using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Crypto.Pooling;

namespace Encryption.Custom.Tests.Cosmos.Streams;

public sealed class PooledContentStreamTests
{
    private static PooledContentStream Create(byte[] content)
    {
        PooledBufferWriter buffer = PooledBufferWriterPool.Rent();
        buffer.Write(content);
        return new PooledContentStream(buffer);
    }

    [Fact]
    public void Stream_ReadsItsContentAndHidesItsBuffer()
    {
        using PooledContentStream stream = Create([1, 2, 3, 4]);

        byte[] read = new byte[8];
        int count = stream.Read(read);

        Assert.Equal(4, count);
        Assert.Equal([1, 2, 3, 4], read[..4]);
        Assert.Equal(4, stream.Length);
        Assert.False(stream.TryGetBuffer(out _));
        Assert.False(stream.CanWrite);
        Assert.Equal([1, 2, 3, 4], stream.ToArray());
    }

    [Fact]
    public void View_ReadsTheSameBytesWithoutTouchingThePosition()
    {
        using PooledContentStream stream = Create([7, 8, 9]);
        stream.Position = 2;

        using MemoryStream view = stream.CreateView();

        Assert.Equal([7, 8, 9], view.ToArray());
        Assert.Equal(2, stream.Position);
    }

    [Fact]
    public void Dispose_IsIdempotentAndEndsAccess()
    {
        PooledContentStream stream = Create([1]);

        stream.Dispose();
        stream.Dispose();

        Assert.Throws<ObjectDisposedException>(() => stream.ReadByte());
        Assert.Throws<ObjectDisposedException>(() => stream.Content);
    }

    [Fact]
    public void Empty_IsReadable()
    {
        using PooledContentStream stream = new(PooledBufferWriterPool.Rent());

        Assert.Equal(0, stream.Length);
        Assert.Equal(-1, stream.ReadByte());
    }
}
