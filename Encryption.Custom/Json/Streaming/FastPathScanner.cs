using System.Text.Json;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// The common case of <see cref="DocumentScanner.ScanDocument"/> without <see cref="Utf8JsonReader"/>: a hand-written
/// pass over well-formed UTF-8 JSON that records the same top-level properties at a fraction of the reader's
/// per-token cost. It declines (returns <see langword="false"/>) on anything it does not fully handle — malformed
/// JSON, escaped top-level names, depth near the limit — and the reader scan then starts over, so every error and
/// every unusual input is still the reader's to judge. Its input is valid UTF-8 (<see cref="DocumentScanner"/>
/// checks that first), so string contents need no check of their own.
/// </summary>
/// <remarks>
/// What it accepts is a subset of what the reader accepts (RFC 8259 JSON, no comments or trailing commas): a
/// document it accepts yields the very records the reader scan would.
/// </remarks>
internal static partial class FastPathScanner
{
    // Nesting this scan tracks in one 64-bit stack; deeper values go to the reader.
    private const int MaxRelativeDepth = 63;

    private const int Declined = -1;

    /// <summary>Scans a single document (the root object, valid UTF-8) into the empty <paramref name="scan"/>.</summary>
    /// <returns>
    /// <see langword="false"/> when the input needs the reader; <paramref name="scan"/> may then hold partial records
    /// and must be reset.
    /// </returns>
    public static bool TryScanDocument(ReadOnlySpan<byte> input, DecryptionScan scan, int maxDepth)
    {
        if (maxDepth < 1)
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
        document.AnchorProperty = -1;
        document.QueryTokensProperty = -1;
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
            int valueEnd = ScanValue(input, valueStart, maxDepth, out JsonTokenType valueType, out bool valueEscaped, out bool valueSpaced);
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
            property.NestedChild = -1;
            property.ValueStart = valueStart;
            property.ValueType = valueType;
            property.ValueEscaped = valueEscaped;
            property.ValueCompact = valueType is JsonTokenType.StartObject or JsonTokenType.StartArray && !valueSpaced;
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
    private static int ScanValue(ReadOnlySpan<byte> input, int position, int maxDepth, out JsonTokenType type, out bool escaped, out bool spaced)
    {
        escaped = false;
        spaced = false;
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
                return ScanContainer(input, position, maxDepth, out spaced);
            case (byte)'[':
                type = JsonTokenType.StartArray;
                return ScanContainer(input, position, maxDepth, out spaced);
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
    /// <param name="input">The document.</param>
    /// <param name="position">The opening bracket.</param>
    /// <param name="maxDepth">The document depth limit.</param>
    /// <param name="spaced">Set when there is whitespace between its tokens (not only inside its strings).</param>
    /// <returns>Just after its closing bracket, or <see cref="Declined"/>.</returns>
    /// <remarks>A state machine over the labels below, without recursion.</remarks>
    private static int ScanContainer(ReadOnlySpan<byte> input, int position, int maxDepth, out bool spaced)
    {
        // Level 0 has reader depth 1; DocumentScanner throws from depth maxDepth on, so decline before that.
        int maxLevel = Math.Min(MaxRelativeDepth, maxDepth - 2);
        ulong objects = 0; // bit `level` set when that level is an object
        int level = -1;
        spaced = false;

    Open: // on an opening bracket
        if (++level > maxLevel)
        {
            return Declined;
        }

        objects = input[position] == (byte)'{' ? objects | (1UL << level) : objects & ~(1UL << level);
        position = SkipWhitespace(input, position + 1, ref spaced);
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

            position = SkipWhitespace(input, position, ref spaced);
            if (position >= input.Length || input[position] != (byte)':')
            {
                return Declined;
            }

            position = SkipWhitespace(input, position + 1, ref spaced);
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
        position = SkipWhitespace(input, position, ref spaced);
        if (position >= input.Length)
        {
            return Declined;
        }

        if (input[position] == (byte)',')
        {
            position = SkipWhitespace(input, position + 1, ref spaced);
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
}
