using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;

namespace Encryption.Custom.Performance.Tests.Memory;

/// <summary>
/// Experiment (d): zero-filling 64 KB of unmanaged memory four ways. Zero, because that is what wiping needs and
/// the only value <see cref="CryptographicOperations.ZeroMemory"/> writes.
/// </summary>
public unsafe class MemoryFillBenchmarks
{
    private const int Size = 64 * 1024;
    private byte* _buffer;

    [GlobalSetup]
    public void Setup() => _buffer = (byte*)NativeMemory.AlignedAlloc(Size, 64);

    [GlobalCleanup]
    public void Cleanup() => NativeMemory.AlignedFree(_buffer);

    [Benchmark(Baseline = true)]
    public byte Loop()
    {
        Span<byte> buffer = new(_buffer, Size);
        for (int i = 0; i < buffer.Length; i++)
        {
            buffer[i] = 0;
        }

        return _buffer[Size - 1];
    }

    [Benchmark]
    public byte SpanFill()
    {
        new Span<byte>(_buffer, Size).Fill(0);
        return _buffer[Size - 1];
    }

    [Benchmark]
    public byte UnsafeInitBlock()
    {
        Unsafe.InitBlock(_buffer, 0, Size);
        return _buffer[Size - 1];
    }

    [Benchmark]
    public byte CryptographicOperationsZeroMemory()
    {
        CryptographicOperations.ZeroMemory(new Span<byte>(_buffer, Size));
        return _buffer[Size - 1];
    }
}
