using System.Diagnostics;

namespace Encryption.Custom.Tool.KeyFiles;

/// <summary>
/// Decodes a key file's bytes, chunk by chunk, into the 32-byte key: optional whitespace, exactly 64 contiguous
/// hexadecimal digits, optional whitespace. The digit values are computed without branching on them, so the
/// decoding time does not depend on the key.
/// </summary>
internal struct HexKeyDecoder
{
    /// <summary>The key length in bytes.</summary>
    public const int KeyLength = 32;

    private const int DigitCount = KeyLength * 2;

    private int _digits;
    private int _high;
    private bool _afterKey;

    /// <summary>Decodes <paramref name="chunk"/> into <paramref name="key"/>.</summary>
    /// <returns>Why the file is not a key file, or <see langword="null"/> while it still may be one.</returns>
    public string? Feed(ReadOnlySpan<byte> chunk, Span<byte> key)
    {
        Debug.Assert(key.Length == KeyLength);
        foreach (byte c in chunk)
        {
            if (c is (byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n')
            {
                // Whitespace after the first digit ends the key: the digits must be contiguous.
                _afterKey |= _digits > 0;
                continue;
            }

            int value = HexValue(c);
            if (value < 0)
            {
                return "it holds a character that is neither a hexadecimal digit nor whitespace";
            }

            if (_afterKey)
            {
                return _digits < DigitCount ? "its hexadecimal digits are interrupted by whitespace" : "it holds more than 64 hexadecimal digits";
            }

            if (_digits == DigitCount)
            {
                return "it holds more than 64 hexadecimal digits";
            }

            if ((_digits & 1) == 0)
            {
                _high = value;
            }
            else
            {
                key[_digits >> 1] = (byte)((_high << 4) | value);
                _high = 0;
            }

            _digits++;
        }

        return null;
    }

    /// <summary>Checks that the whole file held a key.</summary>
    /// <returns>Why the file is not a key file, or <see langword="null"/> when <paramref name="key"/> holds the key.</returns>
    public readonly string? Finish() => _digits switch
    {
        0 => "it holds no hexadecimal digits",
        < DigitCount => "it holds fewer than 64 hexadecimal digits",
        _ => null,
    };

    /// <summary>The value of a hexadecimal digit (either case), or -1; branch-free in the digit's value.</summary>
    internal static int HexValue(int c)
    {
        int digit = c - '0';
        int letter = (c | 0x20) - 'a';

        // -1 when the offset lies in its range (0..9, 0..5), 0 otherwise: the sign bit of (x | (max - x)).
        int isDigit = ~((digit | (9 - digit)) >> 31);
        int isLetter = ~((letter | (5 - letter)) >> 31);
        return (digit & isDigit) | ((letter + 10) & isLetter) | ~(isDigit | isLetter);
    }
}
