using System.Runtime.InteropServices;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Crypto.Pooling;

public sealed class PooledBufferWriterTests
{
    [Fact]
    public void Write_PastCapacity_GrowsAndKeepsTheContent()
    {
        using var writer = new PooledBufferWriter(16);
        byte[] expected = Enumerable.Range(0, 5000).Select(i => (byte)i).ToArray();

        for (int i = 0; i < expected.Length; i += 100)
        {
            writer.Write(expected.AsSpan(i, Math.Min(100, expected.Length - i)));
        }

        Assert.Equal(expected, writer.WrittenSpan.ToArray());
        Assert.Equal(expected.Length, writer.WrittenCount);
    }

    [Fact]
    public void Grow_ZeroesTheOldArrayBeforeReturningIt()
    {
        using var writer = new PooledBufferWriter(256);
        writer.Write(Enumerable.Repeat((byte)0xAB, 200).ToArray());
        byte[] old = GetArray(writer);

        writer.GetSpan(10_000);

        Assert.NotSame(old, GetArray(writer));
        Assert.All(old.AsSpan(0, 200).ToArray(), b => Assert.Equal(0, b));
        Assert.All(writer.WrittenSpan.ToArray(), b => Assert.Equal(0xAB, b));
    }

    [Fact]
    public void ClearTruncateAndDispose_ZeroWhatWasWritten()
    {
        var writer = new PooledBufferWriter(64);
        writer.Write(Enumerable.Repeat((byte)7, 50).ToArray());
        byte[] array = GetArray(writer);

        writer.Truncate(20);
        Assert.Equal(20, writer.WrittenCount);
        Assert.All(array.AsSpan(20, 30).ToArray(), b => Assert.Equal(0, b));
        Assert.All(array.AsSpan(0, 20).ToArray(), b => Assert.Equal(7, b));

        writer.Clear();
        Assert.Equal(0, writer.WrittenCount);
        Assert.All(array.AsSpan(0, 50).ToArray(), b => Assert.Equal(0, b));

        writer.Write([1, 2, 3]);
        writer.Dispose();
        writer.Dispose();
        Assert.All(array.AsSpan(0, 3).ToArray(), b => Assert.Equal(0, b));
        Assert.Equal(0, writer.Capacity);

        writer.Write([9]);
        Assert.Equal([9], writer.WrittenSpan.ToArray());
        writer.Dispose();
    }

    [Fact]
    public void Advance_BeyondTheSpan_Throws()
    {
        using var writer = new PooledBufferWriter();
        int length = writer.GetSpan(8).Length;

        Assert.Throws<ArgumentOutOfRangeException>(() => writer.Advance(length + 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => writer.Advance(-1));
    }

    [Fact]
    public async Task AppendFromStream_ShortReads_GrowOnlyWhenFull()
    {
        byte[] content = Enumerable.Range(0, 100_000).Select(i => (byte)i).ToArray();
        var stream = new TricklingStream(content, 1000);
        using var writer = new PooledBufferWriter();

        bool complete = await writer.AppendFromStreamAsync(stream, int.MaxValue, TestContext.Current.CancellationToken);

        Assert.True(complete);
        Assert.Equal(content, writer.WrittenSpan.ToArray());

        // 16 KB first, doubling only when full: 16, 32, 64, 128 KB. A doubling per short read would need far more.
        Assert.InRange(writer.Capacity, content.Length, 256 * 1024);
        // 100 full reads, one split at each of the (at most four) growths, and the end-of-stream read.
        Assert.InRange(stream.Reads, 101, 105);
    }

    [Fact]
    public async Task AppendFromStream_SeekableStream_RentsItsLengthAtOnce()
    {
        byte[] content = new byte[300_000];
        using var writer = new PooledBufferWriter();

        await writer.AppendFromStreamAsync(new MemoryStream(content, writable: false), int.MaxValue, TestContext.Current.CancellationToken);

        Assert.Equal(content.Length, writer.WrittenCount);
        Assert.InRange(writer.Capacity, content.Length + 1, 2 * (content.Length + 1));
    }

    [Theory]
    [InlineData(99, true)]
    [InlineData(100, true)]
    [InlineData(101, false)]
    public async Task AppendFromStream_OverTheLimit_ReportsIt(int length, bool expected)
    {
        using var writer = new PooledBufferWriter();

        bool complete = await writer.AppendFromStreamAsync(new TricklingStream(new byte[length], 7), 100, TestContext.Current.CancellationToken);

        Assert.Equal(expected, complete);
        Assert.InRange(writer.WrittenCount, 0, 101);
    }

    [Fact]
    public void Pool_RentAfterReturn_ReusesInstancesThatHoldNoArray()
    {
        PooledBufferWriter first = PooledBufferWriterPool.Rent();
        first.Write([1, 2, 3]);
        PooledBufferWriterPool.Return(first);

        PooledBufferWriter second = PooledBufferWriterPool.Rent();

        Assert.Equal(0, second.WrittenCount);
        Assert.Equal(0, second.Capacity);
        PooledBufferWriterPool.Return(second);
    }

    private static byte[] GetArray(PooledBufferWriter writer)
    {
        Assert.True(MemoryMarshal.TryGetArray(writer.WrittenMemory, out ArraySegment<byte> segment));
        return segment.Array!;
    }
}
