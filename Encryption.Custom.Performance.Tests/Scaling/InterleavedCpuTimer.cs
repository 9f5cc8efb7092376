using Encryption.Custom.Performance.Tests.Infrastructure;

namespace Encryption.Custom.Performance.Tests.Scaling;

/// <summary>
/// Times several operations in turn, round after round, in CPU time (<see cref="CpuClock"/>), and keeps each one's
/// fastest round: the one least disturbed by the rest of the machine.
/// </summary>
public sealed class InterleavedCpuTimer
{
    private readonly Func<int>[] _operations;
    private readonly double _minimumTimingNanoseconds;
    private readonly int[] _repetitions;
    private readonly double[] _best;

    public InterleavedCpuTimer(Func<int>[] operations, double minimumTimingNanoseconds)
    {
        ArgumentNullException.ThrowIfNull(operations);
        _operations = operations;
        _minimumTimingNanoseconds = minimumTimingNanoseconds;
        _repetitions = new int[operations.Length];
        _best = new double[operations.Length];
        Array.Fill(_repetitions, 1);
        Array.Fill(_best, double.MaxValue);
    }

    /// <summary>Best nanoseconds per operation so far, in the order of the operations.</summary>
    public IReadOnlyList<double> Best => _best;

    /// <summary>Runs each operation until it is compiled and warm, and sizes its timings to the minimum duration.</summary>
    public void WarmUp()
    {
        for (int i = 0; i < _operations.Length; i++)
        {
            int count = 0;
            long start = CpuClock.NowNanoseconds();
            while (count < 3 || CpuClock.NowNanoseconds() - start < 2 * _minimumTimingNanoseconds)
            {
                _operations[i]();
                count++;
            }

            double perOperation = (CpuClock.NowNanoseconds() - start) / (double)count;
            _repetitions[i] = Math.Max(1, (int)Math.Ceiling(_minimumTimingNanoseconds / perOperation));
        }
    }

    /// <summary>Times every operation once per round, in turn.</summary>
    public void Measure(int rounds)
    {
        for (int round = 0; round < rounds; round++)
        {
            for (int i = 0; i < _operations.Length; i++)
            {
                // The same heap for every timing: no garbage left by the previous case is collected on this one's time.
                GC.Collect();
                GC.WaitForPendingFinalizers();
                GC.Collect();
                long start = CpuClock.NowNanoseconds();
                for (int n = 0; n < _repetitions[i]; n++)
                {
                    _operations[i]();
                }

                double perOperation = (CpuClock.NowNanoseconds() - start) / (double)_repetitions[i];
                _best[i] = Math.Min(_best[i], perOperation);
            }
        }
    }
}
