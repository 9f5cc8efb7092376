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
    private readonly long[] _operationsTimed;
    private readonly long[] _gen2Collections;

    public InterleavedCpuTimer(Func<int>[] operations, double minimumTimingNanoseconds)
    {
        ArgumentNullException.ThrowIfNull(operations);
        _operations = operations;
        _minimumTimingNanoseconds = minimumTimingNanoseconds;
        _repetitions = new int[operations.Length];
        _best = new double[operations.Length];
        _operationsTimed = new long[operations.Length];
        _gen2Collections = new long[operations.Length];
        Array.Fill(_repetitions, 1);
        Array.Fill(_best, double.MaxValue);
    }

    /// <summary>Best nanoseconds per operation so far, in the order of the operations.</summary>
    public IReadOnlyList<double> Best => _best;

    /// <summary>
    /// Full (generation 2) collections per operation during the timings, in the order of the operations: a document's
    /// tree that outlives the young generations is collected again with the whole heap, which a linear algorithm
    /// does not show but the garbage collector can.
    /// </summary>
    public double FullCollectionsPerOperation(int index) => _gen2Collections[index] / (double)Math.Max(1, _operationsTimed[index]);

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
                int gen2 = GC.CollectionCount(2);
                long start = CpuClock.NowNanoseconds();
                for (int n = 0; n < _repetitions[i]; n++)
                {
                    _operations[i]();
                }

                double perOperation = (CpuClock.NowNanoseconds() - start) / (double)_repetitions[i];
                _gen2Collections[i] += GC.CollectionCount(2) - gen2;
                _operationsTimed[i] += _repetitions[i];
                _best[i] = Math.Min(_best[i], perOperation);
            }
        }
    }
}
