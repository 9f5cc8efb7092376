using System.Buffers;
using System.Text;

namespace Encryption.Custom.Json.JTokens;

/// <summary>
/// A <see cref="TextReader"/> over UTF-8 text decoded at once into one rented character array: what Newtonsoft.Json
/// reads a document from, instead of a new string of the whole document (two bytes per character, on the large
/// object heap from 42,500 characters on).
/// </summary>
/// <remarks>The characters may be plaintext: <see cref="Dispose(bool)"/> clears them before returning the array.</remarks>
internal sealed class PooledCharReader : TextReader
{
    private char[] _chars;
    private readonly int _length;
    private int _position;

    /// <exception cref="DecoderFallbackException"><paramref name="utf8"/> is not valid UTF-8 (<paramref name="encoding"/> is strict).</exception>
    public PooledCharReader(ReadOnlySpan<byte> utf8, Encoding encoding)
    {
        _chars = ArrayPool<char>.Shared.Rent(Math.Max(1, encoding.GetMaxCharCount(utf8.Length)));
        try
        {
            _length = encoding.GetChars(utf8, _chars);
        }
        catch
        {
            Release();
            throw;
        }
    }

    public override int Peek() => _position < _length ? _chars[_position] : -1;

    public override int Read() => _position < _length ? _chars[_position++] : -1;

    public override int Read(char[] buffer, int index, int count) => Read(buffer.AsSpan(index, count));

    public override int Read(Span<char> buffer)
    {
        int count = Math.Min(buffer.Length, _length - _position);
        _chars.AsSpan(_position, count).CopyTo(buffer);
        _position += count;
        return count;
    }

    protected override void Dispose(bool disposing)
    {
        Release();
        base.Dispose(disposing);
    }

    private void Release()
    {
        char[] chars = _chars;
        if (chars.Length != 0)
        {
            _chars = [];
            Array.Clear(chars, 0, Math.Max(_length, 0));
            ArrayPool<char>.Shared.Return(chars);
        }
    }
}
