using System.Buffers;
using System.Runtime.InteropServices;
using BenchmarkDotNet.Attributes;

namespace Encryption.Custom.Performance.Tests.Memory;

/// <summary>
/// Experiment (a): getting and giving back a 64 KB buffer, managed versus unmanaged. 64 KB stays below the
/// Large Object Heap threshold (85,000 bytes) and below glibc's mmap threshold (128 KB), so neither side maps pages.
/// </summary>
public class MemoryAllocationBenchmarks
{
    private const int Size = 64 * 1024;

    [Benchmark(Baseline = true)]
    public byte[] NewByteArray() => new byte[Size];

    [Benchmark]
    public byte[] GcAllocateUninitializedArray() => GC.AllocateUninitializedArray<byte>(Size);

    [Benchmark]
    public int ArrayPoolRentReturn()
    {
        byte[] buffer = ArrayPool<byte>.Shared.Rent(Size);
        ArrayPool<byte>.Shared.Return(buffer);
        return buffer.Length;
    }

    [Benchmark]
    public unsafe nint NativeMemoryAllocFree()
    {
        void* buffer = NativeMemory.Alloc(Size);
        NativeMemory.Free(buffer);
        return (nint)buffer;
    }

    [Benchmark]
    public unsafe nint NativeMemoryAlignedAllocFree()
    {
        void* buffer = NativeMemory.AlignedAlloc(Size, 64);
        NativeMemory.AlignedFree(buffer);
        return (nint)buffer;
    }
}
