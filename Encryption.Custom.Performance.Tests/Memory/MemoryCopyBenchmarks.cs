using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using BenchmarkDotNet.Attributes;

namespace Encryption.Custom.Performance.Tests.Memory;

/// <summary>Experiment (b): copying 64 KB of unmanaged memory three ways (buffers allocated once, 64-byte aligned).</summary>
public unsafe class MemoryCopyBenchmarks
{
    private const int Size = 64 * 1024;
    private byte* _source;
    private byte* _destination;

    [GlobalSetup]
    public void Setup()
    {
        _source = (byte*)NativeMemory.AlignedAlloc(Size, 64);
        _destination = (byte*)NativeMemory.AlignedAlloc(Size, 64);
        new Span<byte>(_source, Size).Fill(0x5A);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        NativeMemory.AlignedFree(_source);
        NativeMemory.AlignedFree(_destination);
    }

    [Benchmark(Baseline = true)]
    public byte BufferMemoryCopy()
    {
        Buffer.MemoryCopy(_source, _destination, Size, Size);
        return _destination[Size - 1];
    }

    [Benchmark]
    public byte SpanCopyTo()
    {
        new ReadOnlySpan<byte>(_source, Size).CopyTo(new Span<byte>(_destination, Size));
        return _destination[Size - 1];
    }

    [Benchmark]
    public byte UnsafeCopyBlock()
    {
        Unsafe.CopyBlock(_destination, _source, Size);
        return _destination[Size - 1];
    }
}
