// The token-level half of FastPathScanner: strings, escapes, numbers, literals and whitespace, each returning the
// position just after the token or Declined, with the same acceptance rules as Utf8JsonReader (RFC 8259, no comments).
using Encryption.Custom.Json.Text;

namespace Encryption.Custom.Json.Streaming;

internal static partial class FastPathScanner
{
    private static int ScanScalar(ReadOnlySpan<byte> input, int position) => input[position] switch
    {
        (byte)'"' => ScanString(input, position, out _),
        (byte)'t' => ScanLiteral(input, position, "true"u8),
        (byte)'f' => ScanLiteral(input, position, "false"u8),
        (byte)'n' => ScanLiteral(input, position, "null"u8),
        _ => ScanNumber(input, position),
    };

    /// <summary>Moves past the string whose opening quote is at <paramref name="position"/>.</summary>
    /// <returns>Just after the closing quote, or <see cref="Declined"/>.</returns>
    private static int ScanString(ReadOnlySpan<byte> input, int position, out bool escaped)
    {
        escaped = false;
        position++;
        while (true)
        {
            int stop = JsonStringStops.IndexOf(input[position..]);
            if (stop < 0)
            {
                return Declined;
            }

            position += stop;
            byte value = input[position];
            if (value == (byte)'"')
            {
                return position + 1;
            }

            if (value != (byte)'\\')
            {
                return Declined; // a control character
            }

            escaped = true;
            position = ScanEscape(input, position);
            if (position == Declined)
            {
                return Declined;
            }
        }
    }

    // The escapes RFC 8259 allows; \u takes any four hex digits (the reader checks surrogates only when unescaping).
    private static int ScanEscape(ReadOnlySpan<byte> input, int backslash)
    {
        if (backslash + 1 >= input.Length)
        {
            return Declined;
        }

        switch (input[backslash + 1])
        {
            case (byte)'"' or (byte)'\\' or (byte)'/' or (byte)'b' or (byte)'f' or (byte)'n' or (byte)'r' or (byte)'t':
                return backslash + 2;
            case (byte)'u':
                if (backslash + 6 > input.Length)
                {
                    return Declined;
                }

                foreach (byte digit in input.Slice(backslash + 2, 4))
                {
                    if (!char.IsAsciiHexDigit((char)digit))
                    {
                        return Declined;
                    }
                }

                return backslash + 6;
            default:
                return Declined;
        }
    }

    private static int ScanLiteral(ReadOnlySpan<byte> input, int position, ReadOnlySpan<byte> literal) =>
        input[position..].StartsWith(literal) ? position + literal.Length : Declined;

    // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?  — what follows is checked by the caller (a delimiter).
    private static int ScanNumber(ReadOnlySpan<byte> input, int position)
    {
        if (input[position] == (byte)'-')
        {
            position++;
        }

        if (position >= input.Length)
        {
            return Declined;
        }

        if (input[position] == (byte)'0')
        {
            position++;
        }
        else if (IsDigit(input[position]))
        {
            position = SkipDigits(input, position + 1);
        }
        else
        {
            return Declined;
        }

        if (position < input.Length && input[position] == (byte)'.')
        {
            int digits = position + 1;
            position = SkipDigits(input, digits);
            if (position == digits)
            {
                return Declined;
            }
        }

        if (position < input.Length && (input[position] | 0x20) == (byte)'e')
        {
            position++;
            if (position < input.Length && input[position] is (byte)'+' or (byte)'-')
            {
                position++;
            }

            int digits = position;
            position = SkipDigits(input, digits);
            if (position == digits)
            {
                return Declined;
            }
        }

        return position;
    }

    private static int SkipDigits(ReadOnlySpan<byte> input, int position)
    {
        while (position < input.Length && IsDigit(input[position]))
        {
            position++;
        }

        return position;
    }

    private static bool IsDigit(byte value) => (uint)(value - '0') <= 9;

    // As below, and sets skipped when there was whitespace to skip.
    private static int SkipWhitespace(ReadOnlySpan<byte> input, int position, ref bool skipped)
    {
        int next = SkipWhitespace(input, position);
        skipped |= next != position;
        return next;
    }

    private static int SkipWhitespace(ReadOnlySpan<byte> input, int position)
    {
        while (position < input.Length && input[position] is (byte)' ' or (byte)'\n' or (byte)'\r' or (byte)'\t')
        {
            position++;
        }

        return position;
    }
}
