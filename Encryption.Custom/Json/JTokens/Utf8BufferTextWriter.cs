using System.Buffers;
using System.Text;
using Encryption.Custom.Crypto.Pooling;

namespace Encryption.Custom.Json.JTokens;

/// <summary>
/// A <see cref="TextWriter"/> that encodes what Newtonsoft.Json writes as UTF-8 straight into a
/// <see cref="PooledBufferWriter"/>, instead of a growing <see cref="StringBuilder"/>, then a string of the whole
/// document, then its bytes.
/// </summary>
/// <remarks>
/// Same bytes as <c>Encoding.UTF8.GetBytes(token.ToString())</c>: the encoder keeps a surrogate pair split across two
/// writes together and replaces a lone surrogate as <see cref="Encoding.UTF8"/> does. Characters are gathered in a
/// rented buffer (cleared on return: they may be plaintext) and encoded a chunk at a time.
/// </remarks>
internal sealed class Utf8BufferTextWriter : TextWriter
{
    private const int ChunkLength = 2048;

    private readonly PooledBufferWriter _output;
    private readonly Encoder _encoder = Encoding.UTF8.GetEncoder();
    private char[] _chunk = ArrayPool<char>.Shared.Rent(ChunkLength);
    private int _used;

    public Utf8BufferTextWriter(PooledBufferWriter output)
        : base(System.Globalization.CultureInfo.InvariantCulture)
    {
        _output = output;
    }

    public override Encoding Encoding => Encoding.UTF8;

    public override void Write(char value)
    {
        if (_used == _chunk.Length)
        {
            Encode(flush: false);
        }

        _chunk[_used++] = value;
    }

    public override void Write(char[] buffer, int index, int count) => Write(buffer.AsSpan(index, count));

    public override void Write(string? value) => Write(value.AsSpan());

    public override void Write(ReadOnlySpan<char> buffer)
    {
        while (!buffer.IsEmpty)
        {
            if (_used == _chunk.Length)
            {
                Encode(flush: false);
            }

            int count = Math.Min(buffer.Length, _chunk.Length - _used);
            buffer[..count].CopyTo(_chunk.AsSpan(_used));
            _used += count;
            buffer = buffer[count..];
        }
    }

    /// <summary>Encodes everything written so far, including a trailing lone surrogate.</summary>
    public override void Flush() => Encode(flush: true);

    protected override void Dispose(bool disposing)
    {
        char[] chunk = _chunk;
        if (chunk.Length != 0)
        {
            _chunk = [];
            Array.Clear(chunk);
            ArrayPool<char>.Shared.Return(chunk);
        }

        base.Dispose(disposing);
    }

    private void Encode(bool flush)
    {
        ReadOnlySpan<char> chars = _chunk.AsSpan(0, _used);
        Span<byte> bytes = _output.GetSpan(_encoder.GetByteCount(chars, flush));
        int written = _encoder.GetBytes(chars, bytes, flush);
        _output.Advance(written);
        _chunk.AsSpan(0, _used).Clear();
        _used = 0;
    }
}
