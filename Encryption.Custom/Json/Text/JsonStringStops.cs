using System.Buffers;
using System.Numerics;
using System.Runtime.Intrinsics;

namespace Encryption.Custom.Json.Text;

/// <summary>
/// Where a run of plain JSON string content ends: at a quote, a backslash or a control character (which JSON forbids
/// unescaped). The scan asks this once per string (two or three times per property), and most strings are short; the
/// escaper (<see cref="JsonStringEscaper"/>) asks it of every decrypted string.
/// </summary>
/// <remarks>
/// <see cref="SearchValues{T}"/> over those 34 bytes costs a fixed setup per call that a 12-byte name does not
/// amortize (about a tenth of a scan that is mostly names and short values: the profile of issue 37). Three
/// comparisons of 32 bytes at a time (quote, backslash, unsigned below 0x20) find the stop in one step for most strings;
/// a remainder shorter than 32 bytes goes to the general search. Loads go through bounds-checked spans.
/// </remarks>
internal static class JsonStringStops
{
    private static readonly SearchValues<byte> s_stops = SearchValues.Create(
        [
            0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,
            0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F,
            (byte)'"', (byte)'\\',
        ]);

    /// <summary>The index of the first quote, backslash or control character in <paramref name="text"/>, or -1.</summary>
    public static int IndexOf(ReadOnlySpan<byte> text)
    {
        int offset = 0;
        if (Vector256.IsHardwareAccelerated)
        {
            Vector256<byte> quote = Vector256.Create((byte)'"');
            Vector256<byte> backslash = Vector256.Create((byte)'\\');
            Vector256<byte> space = Vector256.Create((byte)0x20);
            while (offset <= text.Length - Vector256<byte>.Count)
            {
                Vector256<byte> bytes = Vector256.Create(text.Slice(offset, Vector256<byte>.Count));
                Vector256<byte> stops = Vector256.Equals(bytes, quote) | Vector256.Equals(bytes, backslash) | Vector256.LessThan(bytes, space);
                uint mask = stops.ExtractMostSignificantBits();
                if (mask != 0)
                {
                    return offset + BitOperations.TrailingZeroCount(mask);
                }

                offset += Vector256<byte>.Count;
            }
        }

        int rest = text[offset..].IndexOfAny(s_stops);
        return rest < 0 ? -1 : offset + rest;
    }
}
