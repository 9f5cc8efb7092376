using System.Diagnostics;
using System.Runtime.InteropServices;

namespace Encryption.Custom.Performance.Tests.Infrastructure;

/// <summary>
/// The CPU time this process has used, in nanoseconds (Linux: <c>clock_gettime(CLOCK_PROCESS_CPUTIME_ID)</c>,
/// nanosecond resolution); elsewhere the wall clock. CPU time is what a scaling ratio should compare on a machine shared
/// with other builds: while the process waits for a core its CPU clock stands still, its wall clock does not.
/// </summary>
/// <remarks>
/// Process time rather than thread time, so that the work of the background garbage collector caused by the operation
/// counts too. <see cref="Process.TotalProcessorTime"/> is not an option: it reads clock ticks of 10 ms.
/// </remarks>
public static partial class CpuClock
{
    private const int ClockProcessCpuTimeId = 2;
    private const int ClockThreadCpuTimeId = 3;

    /// <summary>True when <see cref="NowNanoseconds"/> is CPU time, false when it falls back to the wall clock.</summary>
    public static bool IsCpuTime { get; } = OperatingSystem.IsLinux() && TryRead(ClockProcessCpuTimeId, out _) && TryRead(ClockThreadCpuTimeId, out _);

    public static long NowNanoseconds() => Now(ClockProcessCpuTimeId);

    /// <summary>
    /// CPU time of the calling thread only: for operations that do all their work on it (no allocation, so no garbage
    /// collector thread working for them), and which must not be charged for a background collection another case
    /// started.
    /// </summary>
    public static long ThreadNowNanoseconds() => Now(ClockThreadCpuTimeId);

    private static long Now(int clock)
    {
        if (IsCpuTime && TryRead(clock, out long nanoseconds))
        {
            return nanoseconds;
        }

        return (long)(Stopwatch.GetTimestamp() * (1e9 / Stopwatch.Frequency));
    }

    private static bool TryRead(int clock, out long nanoseconds)
    {
        if (clock_gettime(clock, out TimeSpec time) != 0)
        {
            nanoseconds = 0;
            return false;
        }

        nanoseconds = (time.Seconds * 1_000_000_000L) + time.Nanoseconds;
        return true;
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }

#pragma warning disable SA1300 // the C function's name
    [LibraryImport("libc", SetLastError = false)]
    private static partial int clock_gettime(int clockId, out TimeSpec time);
#pragma warning restore SA1300
}
