using System.Runtime.InteropServices;
using Encryption.Custom.Crypto.Pooling;

namespace Encryption.Custom.Tests.Crypto.Pooling;

public sealed class PooledMemoryStreamTests
{
    [Fact]
    public void WriteSeekRead_BehaveLikeAMemoryStream()
    {
        using var pooled = new PooledMemoryStream();
        var reference = new MemoryStream();
        byte[] data = Enumerable.Range(0, 3000).Select(i => (byte)(i * 7)).ToArray();

        foreach (Stream stream in new Stream[] { pooled, reference })
        {
            stream.Write(data, 0, 1000);
            stream.Write(data.AsSpan(1000, 2000));
            stream.Position = 10;
            stream.WriteByte(0xFF);
            stream.Seek(-5, SeekOrigin.End);
            stream.Write([1, 2, 3, 4, 5, 6, 7]);
            stream.Position = 4000;
            stream.Write([9]);
            stream.SetLength(3500);
            stream.Position = 0;
        }

        Assert.Equal(reference.Length, pooled.Length);
        Assert.Equal(reference.ToArray(), pooled.GetContent().ToArray());
        byte[] read = new byte[5000];
        Assert.Equal(reference.Read(read, 0, 5000), pooled.Read(read, 0, 5000));
        Assert.Equal(-1, pooled.ReadByte());
    }

    [Fact]
    public async Task AsyncReadAndWrite_Work()
    {
        await using var stream = new PooledMemoryStream();
        await stream.WriteAsync(new byte[] { 1, 2, 3 }, TestContext.Current.CancellationToken);
        stream.Position = 0;
        byte[] buffer = new byte[3];

        int read = await stream.ReadAsync(buffer, TestContext.Current.CancellationToken);

        Assert.Equal(3, read);
        Assert.Equal([1, 2, 3], buffer);
    }

    [Fact]
    public void Dispose_ZeroesTheContentAndIsIdempotent()
    {
        var stream = new PooledMemoryStream(64);
        stream.Write(Enumerable.Repeat((byte)0x5A, 40).ToArray());
        Assert.True(MemoryMarshal.TryGetArray(stream.GetContentMemory(), out ArraySegment<byte> segment));
        byte[] array = segment.Array!;

        stream.Dispose();
        stream.Dispose();

        Assert.All(array.AsSpan(0, 40).ToArray(), b => Assert.Equal(0, b));
        Assert.False(stream.CanRead);
        Assert.Throws<ObjectDisposedException>(() => stream.Length);
        Assert.Throws<ObjectDisposedException>(() => stream.Write([1]));
    }

    [Fact]
    public void Grow_ZeroesTheOldArray()
    {
        using var stream = new PooledMemoryStream(256);
        stream.Write(Enumerable.Repeat((byte)0x11, 200).ToArray());
        Assert.True(MemoryMarshal.TryGetArray(stream.GetContentMemory(), out ArraySegment<byte> segment));

        stream.Write(new byte[10_000]);

        Assert.All(segment.Array!.AsSpan(0, 200).ToArray(), b => Assert.Equal(0, b));
        Assert.Equal(0x11, stream.GetContent()[199]);
    }

    [Fact]
    public void SetLength_Shorter_ZeroesTheCutPart()
    {
        using var stream = new PooledMemoryStream(64);
        stream.Write(Enumerable.Repeat((byte)3, 30).ToArray());
        Assert.True(MemoryMarshal.TryGetArray(stream.GetContentMemory(), out ArraySegment<byte> segment));

        stream.SetLength(10);

        Assert.All(segment.Array!.AsSpan(10, 20).ToArray(), b => Assert.Equal(0, b));
        Assert.Equal(10, stream.Position);
    }

    [Fact]
    public void Seek_BeforeTheStart_Throws()
    {
        using var stream = new PooledMemoryStream();

        Assert.Throws<IOException>(() => stream.Seek(-1, SeekOrigin.Begin));
    }
}
