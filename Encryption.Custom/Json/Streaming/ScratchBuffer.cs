using System.Buffers;
using System.Security.Cryptography;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// A rented byte array for values too large for the stack. It may hold plaintext, so <see cref="Dispose"/>
/// zeroes the part that was used before returning it.
/// </summary>
internal struct ScratchBuffer : IDisposable
{
    /// <summary>Up to this size, callers use a stack buffer instead.</summary>
    public const int StackLimit = 256;

    private byte[]? _array;
    private int _used;

    /// <summary>Rents at least <paramref name="length"/> bytes.</summary>
    public Span<byte> Rent(int length)
    {
        _array = ArrayPool<byte>.Shared.Rent(length);
        _used = length;
        return _array.AsSpan(0, length);
    }

    /// <summary>Zeroes the rented bytes and returns the array.</summary>
    public void Dispose()
    {
        byte[]? array = _array;
        if (array is not null)
        {
            _array = null;
            CryptographicOperations.ZeroMemory(array.AsSpan(0, _used));
            ArrayPool<byte>.Shared.Return(array);
        }
    }
}
