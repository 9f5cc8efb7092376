using System.Globalization;

namespace Encryption.Custom.Performance.Tests.Migration;

/// <summary>
/// How busy the whole machine's cores were between two readings of <c>/proc/stat</c> (Linux; elsewhere unknown): beside
/// the harness's own CPU time, it shows whether the cores bind a measurement (the endpoint's process, the instances and
/// anything else running), which a documents-per-second number alone cannot tell.
/// </summary>
internal readonly record struct MachineCpu(long Busy, long Total)
{
    public static MachineCpu? Read()
    {
        try
        {
            // "cpu  user nice system idle iowait irq softirq steal ...": idle and iowait are the idle share.
            string[] fields = File.ReadLines("/proc/stat").First().Split(' ', StringSplitOptions.RemoveEmptyEntries);
            long[] ticks = [.. fields.Skip(1).Take(8).Select(f => long.Parse(f, CultureInfo.InvariantCulture))];
            long idle = ticks[3] + ticks[4];
            return new MachineCpu(ticks.Sum() - idle, ticks.Sum());
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException or FormatException or IndexOutOfRangeException)
        {
            return null;
        }
    }

    /// <summary>The busy share of every core between <paramref name="before"/> and <paramref name="after"/>, as text ("n/a" when unknown).</summary>
    public static string BusyPercent(MachineCpu? before, MachineCpu? after) =>
        before is { } b && after is { } a && a.Total > b.Total
            ? ((a.Busy - b.Busy) * 100.0 / (a.Total - b.Total)).ToString("F0", CultureInfo.InvariantCulture) + " %"
            : "n/a";
}
