using System.Buffers;
using System.Buffers.Text;
using System.Diagnostics;
using System.Globalization;

namespace Encryption.Custom.Json.Text;

/// <summary>Writes decrypted numbers back as JSON number tokens.</summary>
internal static class JsonNumberFormatter
{
    /// <summary>The longest text of an int64 or a round-trippable double ("-1.7976931348623157E+308" plus ".0").</summary>
    public const int MaxLength = 32;

    private static readonly SearchValues<byte> s_integerCharacters = SearchValues.Create("-0123456789"u8);

    public static void WriteInt64(IBufferWriter<byte> output, long value)
    {
        Span<byte> span = output.GetSpan(MaxLength);
        bool formatted = Utf8Formatter.TryFormat(value, span, out int written);
        Debug.Assert(formatted, "An int64 fits.");
        output.Advance(written);
    }

    /// <summary>
    /// Writes the shortest text that round-trips <paramref name="value"/>, with ".0" added when it would otherwise
    /// look like an integer (so that -0 stays -0.0 and a later encryption still sees a double, as Newtonsoft writes it).
    /// </summary>
    public static void WriteDouble(IBufferWriter<byte> output, double value)
    {
        Debug.Assert(double.IsFinite(value), "JSON cannot hold NaN or infinities.");
        Span<byte> span = output.GetSpan(MaxLength);
        bool formatted = value.TryFormat(span, out int written, "R", CultureInfo.InvariantCulture);
        Debug.Assert(formatted, "A double fits.");
        if (span[..written].IndexOfAnyExcept(s_integerCharacters) < 0)
        {
            span[written++] = (byte)'.';
            span[written++] = (byte)'0';
        }

        output.Advance(written);
    }
}
