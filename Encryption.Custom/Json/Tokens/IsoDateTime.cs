// The canonical form of a date-time on a range path (docs/queries.md "Range and prefix queries"): an ISO 8601
// extended string yyyy-MM-ddTHH:mm:ss, an optional fraction of 1 to 7 digits, and an offset (Z or +hh:mm / -hh:mm),
// which is what System.Text.Json and Newtonsoft write for DateTimeOffset and for a DateTime of kind Utc or Local.
// A string without an offset (a DateTime of kind Unspecified) names no instant, so it is refused, as is any other shape.
namespace Encryption.Custom.Json.Tokens;

/// <summary>Parses the canonical date-time form into UTC ticks, without allocating.</summary>
internal static class IsoDateTime
{
    /// <summary>The instant <paramref name="utf8"/> names, in UTC ticks, or false when it is not in the canonical form.</summary>
    public static bool TryParseUtcTicks(ReadOnlySpan<byte> utf8, out long utcTicks)
    {
        utcTicks = 0;
        if (utf8.Length < 20 || utf8[4] != '-' || utf8[7] != '-' || utf8[10] != 'T' || utf8[13] != ':' || utf8[16] != ':')
        {
            return false;
        }

        if (!TryDigits(utf8[..4], out int year) || !TryDigits(utf8.Slice(5, 2), out int month) || !TryDigits(utf8.Slice(8, 2), out int day)
            || !TryDigits(utf8.Slice(11, 2), out int hour) || !TryDigits(utf8.Slice(14, 2), out int minute) || !TryDigits(utf8.Slice(17, 2), out int second))
        {
            return false;
        }

        int position = 19;
        long fractionTicks = 0;
        if (utf8[position] == '.')
        {
            int digits = 0;
            position++;
            while (position < utf8.Length && utf8[position] is >= (byte)'0' and <= (byte)'9')
            {
                if (++digits > 7)
                {
                    return false;
                }

                fractionTicks = (fractionTicks * 10) + (utf8[position] - '0');
                position++;
            }

            if (digits == 0)
            {
                return false;
            }

            for (int i = digits; i < 7; i++)
            {
                fractionTicks *= 10;
            }
        }

        ReadOnlySpan<byte> zone = utf8[position..];
        int offsetMinutes;
        if (zone.Length == 1 && zone[0] == 'Z')
        {
            offsetMinutes = 0;
        }
        else if (zone.Length == 6 && zone[0] is (byte)'+' or (byte)'-' && zone[3] == ':'
            && TryDigits(zone.Slice(1, 2), out int offsetHours) && TryDigits(zone.Slice(4, 2), out int offsetMinute) && offsetHours <= 14 && offsetMinute < 60)
        {
            offsetMinutes = ((offsetHours * 60) + offsetMinute) * (zone[0] == '-' ? -1 : 1);
        }
        else
        {
            return false;
        }

        if (year < 1 || month is < 1 or > 12 || day < 1 || day > DateTime.DaysInMonth(year, month) || hour > 23 || minute > 59 || second > 59)
        {
            return false;
        }

        long ticks = new DateTime(year, month, day, hour, minute, second, DateTimeKind.Unspecified).Ticks + fractionTicks - (offsetMinutes * TimeSpan.TicksPerMinute);
        if (ticks < DateTime.MinValue.Ticks || ticks > DateTime.MaxValue.Ticks)
        {
            return false;
        }

        utcTicks = ticks;
        return true;
    }

    private static bool TryDigits(ReadOnlySpan<byte> digits, out int value)
    {
        value = 0;
        foreach (byte digit in digits)
        {
            if (digit is < (byte)'0' or > (byte)'9')
            {
                return false;
            }

            value = (value * 10) + (digit - '0');
        }

        return true;
    }
}
