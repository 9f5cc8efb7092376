using System.Buffers;
using System.Security.Cryptography;
using System.Text.Json;
using Encryption.Custom.Json.Text;

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

    /// <summary>
    /// Calls <paramref name="lookup"/> with the unescaped text of the string token (a property name) the reader is on:
    /// in a stack buffer up to <see cref="StackLimit"/> bytes, else in a rented one that is zeroed afterwards. The one
    /// place that unescapes a name into scratch space for a lookup (the top-level paths, the nested selectors).
    /// </summary>
    /// <remarks>Pass a static lambda: it is cached, so the call allocates nothing.</remarks>
    public static TResult WithUnescaped<TState, TResult>(ref Utf8JsonReader reader, TState state, Func<ReadOnlySpan<byte>, TState, TResult> lookup)
    {
        // An unescaped name is never longer than its escaped form.
        var scratch = default(ScratchBuffer);
        try
        {
            Span<byte> name = reader.ValueSpan.Length <= StackLimit
                ? stackalloc byte[StackLimit]
                : scratch.Rent(reader.ValueSpan.Length);
            int length = JsonStringUnescaper.CopyString(ref reader, name);
            return lookup(name[..length], state);
        }
        finally
        {
            scratch.Dispose();
        }
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
