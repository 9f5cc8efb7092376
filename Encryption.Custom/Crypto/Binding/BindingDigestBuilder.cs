// The document digest D of a bound cell (wire-format.md "Bound cells", "The document digest"):
//   D = SHA-256("EC-BIND-v1" ‖ u32be(format) ‖ LP16(algorithm) ‖ LP16(DEK id) ‖ LP16(scope) ‖ LP32(id)
//               ‖ u8(count) ‖ count × partition-key component)
//   component = 0x00 (no value) | 0x01 (null) | 0x02 (false) | 0x03 (true)
//             | 0x04 ‖ IEEE-754 binary64 big-endian (number; -0 written as +0) | 0x05 ‖ LP16(UTF-8) (string)
//   LPn(x) = x's length as an n-bit big-endian unsigned integer ‖ x; every text is UTF-8.
// Every field is length-prefixed or fixed-size, so two different inputs never produce the same byte string.
// Nothing here is secret (the id and partition key are stored in plaintext), so the scratch is not wiped.
using System.Buffers;
using System.Buffers.Binary;
using System.Security.Cryptography;
using System.Text;

namespace Encryption.Custom.Crypto.Binding;

/// <summary>
/// Builds the document digest of bound cells, one field at a time in the order the format fixes. Use it once:
/// <see cref="Create"/>, then exactly the announced number of partition-key components, then <see cref="Finish"/>.
/// </summary>
internal ref struct BindingDigestBuilder
{
    /// <summary>The size of the digest.</summary>
    public const int DigestSize = 32;

    /// <summary>Hierarchical partition keys have at most three levels.</summary>
    public const int MaxPartitionKeyComponents = 3;

    /// <summary>A scratch of this size on the caller's stack holds the input of ordinary documents.</summary>
    public const int RecommendedScratchSize = 512;

    private static ReadOnlySpan<byte> DomainTag => "EC-BIND-v1"u8;

    private static readonly UTF8Encoding s_strictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    private Span<byte> _buffer;
    private byte[]? _rented;
    private int _length;
    private int _remainingComponents;

    /// <summary>Starts the digest input with everything before the partition key.</summary>
    /// <param name="scratch">Where the input is built; a longer input moves to a pooled array (nothing secret).</param>
    /// <param name="format">The document's format number (<c>_ef</c>).</param>
    /// <param name="algorithm">The document's algorithm name (<c>_ea</c>).</param>
    /// <param name="dataEncryptionKeyId">The id of the data encryption key the document's cells are written with.</param>
    /// <param name="scope">The container, independent of the account: "&lt;database id&gt;/&lt;container id&gt;".</param>
    /// <param name="id">The document's id, UTF-8 (as stored, unescaped).</param>
    /// <param name="partitionKeyComponents">How many partition-key paths the container has (0 to 3).</param>
    /// <exception cref="ArgumentException">A text is not valid UTF-16 / UTF-8, or too long for its length prefix.</exception>
    /// <exception cref="ArgumentOutOfRangeException">The component count is outside 0 to 3.</exception>
    public static BindingDigestBuilder Create(
        Span<byte> scratch,
        uint format,
        scoped ReadOnlySpan<char> algorithm,
        scoped ReadOnlySpan<char> dataEncryptionKeyId,
        scoped ReadOnlySpan<char> scope,
        scoped ReadOnlySpan<byte> id,
        int partitionKeyComponents)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(partitionKeyComponents);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(partitionKeyComponents, MaxPartitionKeyComponents);
        ThrowIfInvalidUtf8(id, nameof(id));

        var builder = new BindingDigestBuilder { _buffer = scratch, _remainingComponents = partitionKeyComponents };
        builder.Append(DomainTag);
        BinaryPrimitives.WriteUInt32BigEndian(builder.Reserve(4), format);
        builder.AppendText16(algorithm, nameof(algorithm));
        builder.AppendText16(dataEncryptionKeyId, nameof(dataEncryptionKeyId));
        builder.AppendText16(scope, nameof(scope));
        BinaryPrimitives.WriteUInt32BigEndian(builder.Reserve(4), (uint)id.Length);
        builder.Append(id);
        builder.Reserve(1)[0] = (byte)partitionKeyComponents;
        return builder;
    }

    /// <summary>The document has no value at the next partition-key path.</summary>
    public void AddUndefined() => AddTypeOnly(0x00);

    /// <summary>The next partition-key value is JSON null.</summary>
    public void AddNull() => AddTypeOnly(0x01);

    /// <summary>The next partition-key value is true or false.</summary>
    public void AddBoolean(bool value) => AddTypeOnly(value ? (byte)0x03 : (byte)0x02);

    /// <summary>The next partition-key value is a number (compared as a double, as the service hashes it).</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is NaN or infinite (no JSON number is).</exception>
    public void AddNumber(double value)
    {
        if (!double.IsFinite(value))
        {
            throw new ArgumentOutOfRangeException(nameof(value), "A partition-key number must be finite.");
        }

        TakeComponent();
        Reserve(1)[0] = 0x04;

        // -0 and +0 are the same partition-key value; one of them must have one encoding.
        BinaryPrimitives.WriteDoubleBigEndian(Reserve(8), value == 0 ? 0d : value);
    }

    /// <summary>The next partition-key value is a string, given as UTF-8 (unescaped).</summary>
    /// <exception cref="ArgumentException">The bytes are not valid UTF-8, or longer than 65,535 bytes.</exception>
    public void AddString(scoped ReadOnlySpan<byte> utf8)
    {
        ThrowIfInvalidUtf8(utf8, nameof(utf8));
        if (utf8.Length > ushort.MaxValue)
        {
            throw new ArgumentException("A partition-key string is longer than 65,535 UTF-8 bytes.", nameof(utf8));
        }

        TakeComponent();
        Reserve(1)[0] = 0x05;
        BinaryPrimitives.WriteUInt16BigEndian(Reserve(2), (ushort)utf8.Length);
        Append(utf8);
    }

    /// <summary>Writes D to <paramref name="digest"/> (32 bytes) and releases any pooled buffer.</summary>
    /// <exception cref="InvalidOperationException">Fewer partition-key components were added than announced.</exception>
    public void Finish(scoped Span<byte> digest)
    {
        if (_remainingComponents != 0)
        {
            throw new InvalidOperationException("The document digest needs every partition-key component the container defines.");
        }

        try
        {
            SHA256.HashData(_buffer[.._length], digest[..DigestSize]);
        }
        finally
        {
            Dispose();
        }
    }

    /// <summary>Releases a pooled buffer if the input outgrew the scratch (Finish does this too).</summary>
    public void Dispose()
    {
        if (_rented is not null)
        {
            ArrayPool<byte>.Shared.Return(_rented);
            _rented = null;
        }

        _buffer = default;
        _length = 0;
    }

    private static void ThrowIfInvalidUtf8(ReadOnlySpan<byte> utf8, string paramName)
    {
        if (!System.Text.Unicode.Utf8.IsValid(utf8))
        {
            throw new ArgumentException("The text is not valid UTF-8.", paramName);
        }
    }

    private void AddTypeOnly(byte type)
    {
        TakeComponent();
        Reserve(1)[0] = type;
    }

    private void TakeComponent()
    {
        if (_remainingComponents == 0)
        {
            throw new InvalidOperationException("More partition-key components than the container defines.");
        }

        _remainingComponents--;
    }

    private void AppendText16(scoped ReadOnlySpan<char> text, string paramName)
    {
        int byteCount;
        try
        {
            byteCount = s_strictUtf8.GetByteCount(text);
        }
        catch (EncoderFallbackException)
        {
            throw new ArgumentException("The text is not valid UTF-16 (a lone surrogate).", paramName);
        }

        if (byteCount > ushort.MaxValue)
        {
            throw new ArgumentException("The text is longer than 65,535 UTF-8 bytes.", paramName);
        }

        BinaryPrimitives.WriteUInt16BigEndian(Reserve(2), (ushort)byteCount);
        s_strictUtf8.GetBytes(text, Reserve(byteCount));
    }

    private void Append(scoped ReadOnlySpan<byte> bytes) => bytes.CopyTo(Reserve(bytes.Length));

    private Span<byte> Reserve(int count)
    {
        if (_buffer.Length - _length < count)
        {
            Grow(count);
        }

        Span<byte> reserved = _buffer.Slice(_length, count);
        _length += count;
        return reserved;
    }

    private void Grow(int count)
    {
        byte[] larger = ArrayPool<byte>.Shared.Rent(Math.Max(_length + count, Math.Max(_buffer.Length * 2, RecommendedScratchSize)));
        _buffer[.._length].CopyTo(larger);
        if (_rented is not null)
        {
            ArrayPool<byte>.Shared.Return(_rented);
        }

        _rented = larger;
        _buffer = larger;
    }
}
