using System.Globalization;
using System.Text.RegularExpressions;

namespace Encryption.Custom.Emulator.Tests.Infrastructure;

/// <summary>
/// Session tokens as Cosmos DB writes them in <c>x-ms-session-token</c> for one partition key range:
/// <c>&lt;range id&gt;:&lt;version&gt;#&lt;global LSN&gt;[#&lt;region&gt;=&lt;LSN&gt;]...</c>, the form the SDK parses.
/// </summary>
public static partial class SessionTokens
{
    [GeneratedRegex(@"^(?<range>[^:,]+):(?<version>-?\d+)#(?<lsn>\d+)(#\d+=-?\d+)*$")]
    private static partial Regex SingleRangeToken();

    /// <summary>The range id and global LSN of a single-range token; fails the test for anything else.</summary>
    public static (string RangeId, long Lsn) Parse(string? token)
    {
        Assert.False(string.IsNullOrEmpty(token), "The answer carries no session token.");
        Match match = SingleRangeToken().Match(token!);
        Assert.True(match.Success, $"Not a session token of one partition key range: '{token}'.");
        return (match.Groups["range"].Value, long.Parse(match.Groups["lsn"].Value, CultureInfo.InvariantCulture));
    }

    /// <summary>The global LSN of a single-range token, or null when there is none or it is malformed.</summary>
    public static long? TryLsn(string? token)
    {
        Match match = SingleRangeToken().Match(token ?? string.Empty);
        return match.Success ? long.Parse(match.Groups["lsn"].Value, CultureInfo.InvariantCulture) : null;
    }

    /// <summary>The global LSN of a single-range token.</summary>
    public static long Lsn(string? token) => Parse(token).Lsn;

    /// <summary>The same range and version with another global LSN.</summary>
    public static string WithLsn(string token, long lsn)
    {
        Match match = SingleRangeToken().Match(token);
        Assert.True(match.Success, $"Not a session token of one partition key range: '{token}'.");
        return $"{match.Groups["range"].Value}:{match.Groups["version"].Value}#{lsn.ToString(CultureInfo.InvariantCulture)}";
    }
}
