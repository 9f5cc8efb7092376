using System.Buffers;
using System.Globalization;
using System.Text;

namespace Encryption.Custom.Json.Text;

/// <summary>
/// Writes UTF-8 text as the content of a JSON string with the minimal escaping JSON requires: quote, backslash
/// and control characters (the bytes that end a run of plain string content, <see cref="JsonStringStops"/>). Everything
/// else (non-ASCII included) is copied as is, so output stays compact.
/// </summary>
internal static class JsonStringEscaper
{
    /// <summary>Whether <paramref name="utf8"/> holds a byte that JSON requires to be escaped.</summary>
    public static bool NeedsEscaping(ReadOnlySpan<byte> utf8) => JsonStringStops.IndexOf(utf8) >= 0;

    /// <summary>Writes <c>"</c> + escaped <paramref name="utf8"/> + <c>"</c>.</summary>
    public static void WriteQuoted(IBufferWriter<byte> output, ReadOnlySpan<byte> utf8)
    {
        int firstEscape = JsonStringStops.IndexOf(utf8);
        if (firstEscape < 0)
        {
            // Common case: one copy.
            Span<byte> span = output.GetSpan(utf8.Length + 2);
            span[0] = (byte)'"';
            utf8.CopyTo(span[1..]);
            span[utf8.Length + 1] = (byte)'"';
            output.Advance(utf8.Length + 2);
            return;
        }

        WriteByte(output, (byte)'"');
        WriteEscaped(output, utf8, firstEscape);
        WriteByte(output, (byte)'"');
    }

    /// <summary>The escaped form of <paramref name="utf8"/> without quotes, into a new array (for one-time setup only).</summary>
    public static byte[] EscapeToArray(ReadOnlySpan<byte> utf8)
    {
        var writer = new ArrayBufferWriter<byte>(utf8.Length + 8);
        int firstEscape = JsonStringStops.IndexOf(utf8);
        if (firstEscape < 0)
        {
            writer.Write(utf8);
        }
        else
        {
            WriteEscaped(writer, utf8, firstEscape);
        }

        return writer.WrittenSpan.ToArray();
    }

    /// <summary><paramref name="text"/> as a quoted, escaped JSON string token in UTF-8 (for one-time setup only).</summary>
    public static byte[] QuotedToArray(string text)
    {
        var writer = new ArrayBufferWriter<byte>(text.Length + 10);
        WriteQuoted(writer, Encoding.UTF8.GetBytes(text));
        return writer.WrittenSpan.ToArray();
    }

    private static void WriteEscaped(IBufferWriter<byte> output, ReadOnlySpan<byte> utf8, int nextEscape)
    {
        while (nextEscape >= 0)
        {
            output.Write(utf8[..nextEscape]);
            WriteEscape(output, utf8[nextEscape]);
            utf8 = utf8[(nextEscape + 1)..];
            nextEscape = JsonStringStops.IndexOf(utf8);
        }

        output.Write(utf8);
    }

    private static void WriteEscape(IBufferWriter<byte> output, byte value)
    {
        Span<byte> span = output.GetSpan(6);
        span[0] = (byte)'\\';
        byte shortForm = value switch
        {
            (byte)'"' => (byte)'"',
            (byte)'\\' => (byte)'\\',
            (byte)'\n' => (byte)'n',
            (byte)'\r' => (byte)'r',
            (byte)'\t' => (byte)'t',
            (byte)'\b' => (byte)'b',
            (byte)'\f' => (byte)'f',
            _ => 0,
        };

        if (shortForm != 0)
        {
            span[1] = shortForm;
            output.Advance(2);
            return;
        }

        span[1] = (byte)'u';
        span[2] = (byte)'0';
        span[3] = (byte)'0';
        bool formatted = value.TryFormat(span[4..], out int written, "X2", CultureInfo.InvariantCulture);
        System.Diagnostics.Debug.Assert(formatted && written == 2, "Two hex digits.");
        output.Advance(6);
    }

    private static void WriteByte(IBufferWriter<byte> output, byte value)
    {
        output.GetSpan(1)[0] = value;
        output.Advance(1);
    }
}
