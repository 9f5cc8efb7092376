using System.Buffers;

namespace Encryption.Custom.Json.Text;

/// <summary>
/// Removes insignificant whitespace from JSON text that a reader has already validated, copying every token
/// verbatim (escapes are kept as written). This produces the "compact JSON text" that format 3 encrypts for
/// objects and arrays without re-serializing them.
/// </summary>
internal static class JsonWhitespace
{
    private static readonly SearchValues<byte> s_whitespace = SearchValues.Create(" \t\r\n"u8);

    /// <summary>Whether <paramref name="json"/> contains any whitespace byte (inside strings or not).</summary>
    public static bool ContainsWhitespace(ReadOnlySpan<byte> json) => json.ContainsAny(s_whitespace);

    /// <summary>Copies <paramref name="json"/> into <paramref name="destination"/> without insignificant whitespace.</summary>
    /// <param name="json">Valid JSON text.</param>
    /// <param name="destination">At least as long as <paramref name="json"/>.</param>
    /// <returns>The number of bytes written.</returns>
    public static int Compact(ReadOnlySpan<byte> json, Span<byte> destination)
    {
        int written = 0;
        int i = 0;
        while (i < json.Length)
        {
            byte b = json[i];
            if (b == (byte)'"')
            {
                int end = FindStringEnd(json, i + 1);
                json[i..end].CopyTo(destination[written..]);
                written += end - i;
                i = end;
                continue;
            }

            if (b is not ((byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n'))
            {
                destination[written++] = b;
            }

            i++;
        }

        return written;
    }

    // Returns the index just after the closing quote of the string whose content starts at start.
    private static int FindStringEnd(ReadOnlySpan<byte> json, int start)
    {
        int i = start;
        while (true)
        {
            int next = json[i..].IndexOfAny((byte)'"', (byte)'\\');
            i += next;
            if (json[i] == (byte)'\\')
            {
                i += 2;
                continue;
            }

            return i + 1;
        }
    }
}
