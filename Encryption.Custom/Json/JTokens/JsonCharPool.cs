using System.Buffers;
using Newtonsoft.Json;

namespace Encryption.Custom.Json.JTokens;

/// <summary>
/// Lends Newtonsoft.Json's reader and writer their character buffers from <see cref="ArrayPool{T}.Shared"/>, so
/// that parsing and writing a document does not allocate (and grow) new ones each time.
/// </summary>
/// <remarks>
/// The buffers hold document text, plaintext included, so each one is cleared before it goes back to the pool.
/// </remarks>
internal sealed class JsonCharPool : IArrayPool<char>
{
    public static JsonCharPool Instance { get; } = new();

    private JsonCharPool()
    {
    }

    public char[] Rent(int minimumLength) => ArrayPool<char>.Shared.Rent(minimumLength);

    public void Return(char[]? array)
    {
        if (array is not null)
        {
            Array.Clear(array);
            ArrayPool<char>.Shared.Return(array);
        }
    }
}
