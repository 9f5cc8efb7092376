using System.Buffers;
using System.Text.Json;
using System.Text.Unicode;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// The common case of <see cref="DocumentScanner.ScanDocument"/> without <see cref="Utf8JsonReader"/>: a hand-written
/// pass over well-formed UTF-8 JSON that records the same top-level properties at a fraction of the reader's
/// per-token cost. It declines (returns <see langword="false"/>) on anything it does not fully handle — malformed
/// JSON, invalid UTF-8, escaped top-level names, depth near the limit — and the reader scan then starts over, so
/// every error and every unusual input is still the reader's to judge.
/// </summary>
/// <remarks>
/// What it accepts is a subset of what the reader accepts (RFC 8259 JSON, no comments or trailing commas): a
/// document it accepts yields the very records the reader scan would.
/// </remarks>
internal static class FastPathScanner
{
    // Where a run of plain string content ends: quote, backslash or a control character (which JSON forbids).
    private static readonly SearchValues<byte> s_stringStops = SearchValues.Create(
        [
            0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,
            0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F,
            (byte)'"', (byte)'\\',
        ]);

    // Nesting this scan tracks in one 64-bit stack; deeper values go to the reader.
    private const int MaxRelativeDepth = 63;

    private const int Declined = -1;

    /// <summary>Scans a single document (the root object) into the empty <paramref name="scan"/>.</summary>
    /// <returns>
    /// <see langword="false"/> when the input needs the reader; <paramref name="scan"/> may then hold partial records
    /// and must be reset.
    /// </returns>
    public static bool TryScanDocument(ReadOnlySpan<byte> input, DecryptionScan scan, int maxDepth)
    {
        // One vectorized pass: string contents are then valid UTF-8 whatever the reader's own rules are.
        if (maxDepth < 1 || !Utf8.IsValid(input))
        {
            return false;
        }

        int position = SkipWhitespace(input, 0);
        if (position >= input.Length || input[position] != (byte)'{')
        {
            return false;
        }

        ref DocumentRecord document = ref scan.AddDocument();
        document.Start = position;
        document.Index = 0;
        document.FirstProperty = scan.PropertyCount;
        document.EnvelopeProperty = -1;
        document.IdProperty = -1;
        document.EncryptedDataStart = -1;

        position = SkipWhitespace(input, position + 1);
        if (position < input.Length && input[position] == (byte)'}')
        {
            return Finish(input, scan, ref document, position);
        }

        while (position < input.Length && input[position] == (byte)'"')
        {
            int nameStart = position;
            int nameEnd = ScanString(input, position, out bool nameEscaped);

            // An escaped name needs unescaping with the reader's exact rules: rare, left to the reader.
            if (nameEnd == Declined || nameEscaped)
            {
                return false;
            }

            position = SkipWhitespace(input, nameEnd);
            if (position >= input.Length || input[position] != (byte)':')
            {
                return false;
            }

            int valueStart = SkipWhitespace(input, position + 1);
            int valueEnd = ScanValue(input, valueStart, maxDepth, out JsonTokenType valueType, out bool valueEscaped);
            if (valueEnd == Declined)
            {
                return false;
            }

            int propertyIndex = scan.PropertyCount;
            ref PropertyRecord property = ref scan.AddProperty();
            property.NameStart = nameStart;
            property.NameOffset = nameStart + 1;
            property.NameLength = nameEnd - nameStart - 2;
            property.NameInBuffer = false;
            property.PathIndex = -1;
            property.ValueStart = valueStart;
            property.ValueType = valueType;
            property.ValueEscaped = valueEscaped;
            property.ValueEnd = valueEnd;
            DocumentScanner.Classify(ref document, propertyIndex, input.Slice(property.NameOffset, property.NameLength), valueType);

            position = SkipWhitespace(input, valueEnd);
            if (position >= input.Length)
            {
                return false;
            }

            if (input[position] == (byte)'}')
            {
                return Finish(input, scan, ref document, position);
            }

            if (input[position] != (byte)',')
            {
                return false;
            }

            position = SkipWhitespace(input, position + 1);
        }

        return false;
    }

    private static bool Finish(ReadOnlySpan<byte> input, DecryptionScan scan, ref DocumentRecord document, int closingBrace)
    {
        document.End = closingBrace + 1;
        document.PropertyCount = scan.PropertyCount - document.FirstProperty;

        // Only whitespace may follow the root.
        return SkipWhitespace(input, document.End) == input.Length;
    }

    /// <summary>Moves past one top-level value (its reader depth is 1).</summary>
    /// <returns>Just after the value, or <see cref="Declined"/>.</returns>
    private static int ScanValue(ReadOnlySpan<byte> input, int position, int maxDepth, out JsonTokenType type, out bool escaped)
    {
        escaped = false;
        type = JsonTokenType.None;
        if (position >= input.Length)
        {
            return Declined;
        }

        switch (input[position])
        {
            case (byte)'"':
                type = JsonTokenType.String;
                return ScanString(input, position, out escaped);
            case (byte)'{':
                type = JsonTokenType.StartObject;
                return ScanContainer(input, position, maxDepth);
            case (byte)'[':
                type = JsonTokenType.StartArray;
                return ScanContainer(input, position, maxDepth);
            case (byte)'t':
                type = JsonTokenType.True;
                return ScanLiteral(input, position, "true"u8);
            case (byte)'f':
                type = JsonTokenType.False;
                return ScanLiteral(input, position, "false"u8);
            case (byte)'n':
                type = JsonTokenType.Null;
                return ScanLiteral(input, position, "null"u8);
            default:
                type = JsonTokenType.Number;
                return ScanNumber(input, position);
        }
    }

    /// <summary>Moves past a top-level object or array and everything in it.</summary>
    /// <returns>Just after its closing bracket, or <see cref="Declined"/>.</returns>
    /// <remarks>A state machine over the labels below, without recursion.</remarks>
    private static int ScanContainer(ReadOnlySpan<byte> input, int position, int maxDepth)
    {
        // Level 0 has reader depth 1; DocumentScanner throws from depth maxDepth on, so decline before that.
        int maxLevel = Math.Min(MaxRelativeDepth, maxDepth - 2);
        ulong objects = 0; // bit `level` set when that level is an object
        int level = -1;

    Open: // on an opening bracket
        if (++level > maxLevel)
        {
            return Declined;
        }

        objects = input[position] == (byte)'{' ? objects | (1UL << level) : objects & ~(1UL << level);
        position = SkipWhitespace(input, position + 1);
        if (position >= input.Length)
        {
            return Declined;
        }

        if (input[position] == Closer(objects, level))
        {
            goto Close;
        }

    Member: // at the start of a member (object) or element (array)
        if ((objects & (1UL << level)) != 0)
        {
            if (input[position] != (byte)'"')
            {
                return Declined;
            }

            position = ScanString(input, position, out _);
            if (position == Declined)
            {
                return Declined;
            }

            position = SkipWhitespace(input, position);
            if (position >= input.Length || input[position] != (byte)':')
            {
                return Declined;
            }

            position = SkipWhitespace(input, position + 1);
            if (position >= input.Length)
            {
                return Declined;
            }
        }

        if (input[position] is (byte)'{' or (byte)'[')
        {
            goto Open;
        }

        position = ScanScalar(input, position);
        if (position == Declined)
        {
            return Declined;
        }

    AfterValue:
        position = SkipWhitespace(input, position);
        if (position >= input.Length)
        {
            return Declined;
        }

        if (input[position] == (byte)',')
        {
            position = SkipWhitespace(input, position + 1);
            if (position >= input.Length)
            {
                return Declined;
            }

            goto Member;
        }

        if (input[position] != Closer(objects, level))
        {
            return Declined;
        }

    Close:
        position++;
        if (level == 0)
        {
            return position;
        }

        level--;
        goto AfterValue;
    }

    private static byte Closer(ulong objects, int level) => (objects & (1UL << level)) != 0 ? (byte)'}' : (byte)']';

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
            int stop = input[position..].IndexOfAny(s_stringStops);
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

    private static int SkipWhitespace(ReadOnlySpan<byte> input, int position)
    {
        while (position < input.Length && input[position] is (byte)' ' or (byte)'\n' or (byte)'\r' or (byte)'\t')
        {
            position++;
        }

        return position;
    }
}
