using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Text;
using System.Text.Json;
using Encryption.Custom.Json.Errors;

namespace Encryption.Custom.Json.Text;

/// <summary>Unescapes JSON strings without allocating, turning the reader's escape errors into domain errors.</summary>
internal static class JsonStringUnescaper
{
    /// <summary>
    /// Unescapes the current string or property name of <paramref name="reader"/> into <paramref name="destination"/>
    /// (at least <c>ValueSpan.Length</c> bytes).
    /// </summary>
    /// <returns>The number of bytes written.</returns>
    /// <exception cref="EncryptionException">An escape names a lone surrogate (<see cref="EncryptionErrorKind.MalformedDocument"/>).</exception>
    public static int CopyString(ref Utf8JsonReader reader, scoped Span<byte> destination)
    {
        try
        {
            return reader.CopyString(destination);
        }
        catch (InvalidOperationException)
        {
            // The reader validates escapes lazily: "\ud800" alone is well-formed JSON but not text.
            JsonErrors.ThrowMalformed("The document contains a string with an escaped lone surrogate, which is not valid text.");
            return 0;
        }
    }

    /// <summary>
    /// Unescapes the string token <paramref name="quotedToken"/> (its quotes included) into
    /// <paramref name="destination"/> (at least the token length).
    /// </summary>
    /// <remarks>
    /// The token comes from a document the scan has judged (valid UTF-8, escapes of the forms RFC 8259 allows), so
    /// it is unescaped here directly, with the reader's rules (<see cref="CopyString"/>; a property test holds the two
    /// to the same output and the same refusals). Before, a reader was built over the token and read it once more
    /// just to unescape it: about 6 % of encrypting a small document with one escaped string. An escape this does not
    /// know is refused, never copied.
    /// </remarks>
    /// <returns>The number of bytes written.</returns>
    /// <exception cref="EncryptionException">
    /// An escape names a lone surrogate, or is not an escape JSON allows (<see cref="EncryptionErrorKind.MalformedDocument"/>).
    /// </exception>
    public static int Unescape(ReadOnlySpan<byte> quotedToken, Span<byte> destination)
    {
        Debug.Assert(quotedToken.Length >= 2 && quotedToken[0] == (byte)'"' && quotedToken[^1] == (byte)'"', "A validated string token.");
        ReadOnlySpan<byte> text = quotedToken[1..^1];
        int written = 0;
        while (true)
        {
            int backslash = text.IndexOf((byte)'\\');
            if (backslash < 0)
            {
                text.CopyTo(destination[written..]);
                return written + text.Length;
            }

            text[..backslash].CopyTo(destination[written..]);
            written += backslash;
            text = text[backslash..];
            if (text.Length < 2)
            {
                ThrowInvalidEscape();
            }

            switch (text[1])
            {
                case (byte)'"' or (byte)'\\' or (byte)'/':
                    destination[written++] = text[1];
                    text = text[2..];
                    break;
                case (byte)'b':
                    destination[written++] = 0x08;
                    text = text[2..];
                    break;
                case (byte)'f':
                    destination[written++] = 0x0C;
                    text = text[2..];
                    break;
                case (byte)'n':
                    destination[written++] = 0x0A;
                    text = text[2..];
                    break;
                case (byte)'r':
                    destination[written++] = 0x0D;
                    text = text[2..];
                    break;
                case (byte)'t':
                    destination[written++] = 0x09;
                    text = text[2..];
                    break;
                case (byte)'u':
                    written += UnescapeUnicode(ref text, destination[written..]);
                    break;
                default:
                    ThrowInvalidEscape();
                    break;
            }
        }
    }

    // \uXXXX at the start of text (or a surrogate pair of two): its character as UTF-8; text moves past it.
    private static int UnescapeUnicode(ref ReadOnlySpan<byte> text, Span<byte> destination)
    {
        int unit = ReadHex4(text);
        text = text[6..];
        if (char.IsLowSurrogate((char)unit))
        {
            ThrowLoneSurrogate();
        }

        if (char.IsHighSurrogate((char)unit))
        {
            // Only an escaped low surrogate may follow, as the reader requires.
            if (text.Length < 6 || text[0] != (byte)'\\' || text[1] != (byte)'u' || !char.IsLowSurrogate((char)ReadHex4(text)))
            {
                ThrowLoneSurrogate();
            }

            int low = ReadHex4(text);
            text = text[6..];
            return new Rune((char)unit, (char)low).EncodeToUtf8(destination);
        }

        return new Rune(unit).EncodeToUtf8(destination);
    }

    // The four hex digits after "\u" at the start of text.
    private static int ReadHex4(ReadOnlySpan<byte> text)
    {
        if (text.Length < 6)
        {
            ThrowInvalidEscape();
        }

        int value = 0;
        foreach (byte digit in text.Slice(2, 4))
        {
            int nibble = HexConverter(digit);
            if (nibble < 0)
            {
                ThrowInvalidEscape();
            }

            value = (value << 4) | nibble;
        }

        return value;
    }

    private static int HexConverter(byte digit) => digit switch
    {
        >= (byte)'0' and <= (byte)'9' => digit - '0',
        >= (byte)'a' and <= (byte)'f' => digit - 'a' + 10,
        >= (byte)'A' and <= (byte)'F' => digit - 'A' + 10,
        _ => -1,
    };

    [DoesNotReturn]
    private static void ThrowLoneSurrogate() =>
        JsonErrors.ThrowMalformed("The document contains a string with an escaped lone surrogate, which is not valid text.");

    [DoesNotReturn]
    private static void ThrowInvalidEscape() =>
        JsonErrors.ThrowMalformed("The document contains a string with an escape JSON does not allow.");
}
