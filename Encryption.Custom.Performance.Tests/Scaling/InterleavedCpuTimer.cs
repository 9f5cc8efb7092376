using Encryption.Custom.Performance.Tests.Infrastructure;

namespace Encryption.Custom.Performance.Tests.Scaling;

/// <summary>
/// Times several operations in turn, round after round, in CPU time (<see cref="CpuClock"/>), and keeps each one's
/// fastest timing: the one least disturbed by the rest of the machine.
/// </summary>
/// <remarks>
/// <para>
/// An operation that allocates nothing does all its work on the calling thread, so it is timed in that thread's CPU
/// time, in short timings (<see cref="ShortTimingNanoseconds"/>, several per round). The process's CPU time would
/// also charge it for the runtime's background threads (tiered compilation, a background collection a Newtonsoft case
/// started); and on a loaded machine a long timing is always cut by other processes, each of which leaves the caches
/// cold, while a short one often runs within one time slice: its fastest is the code's own cost.
/// </para>
/// <para>
/// An operation that allocates is timed as before this distinction: in the process's CPU time, so that the collector's
/// work on its own threads counts too, in one timing per round sized from the warm-up's average (which includes its
/// collections), each starting from the heap a full collection leaves. Tried and dropped (docs/benchmarks.md): timings
/// of 100 ms, which measure the Newtonsoft tree promoted by young collections mid-operation (its 256 KB → 1 MB step
/// then measured 8×: the collector, not the code), a young collection closing every timing (5.4-6.1×), and thread time
/// with background collection off (<c>DOTNET_gcConcurrent=0</c>: the 4 MB tree then costs full blocking collections,
/// 8.8-10.3× for 1 → 4 MB).
/// </para>
/// </remarks>
public sealed class InterleavedCpuTimer
{
    /// <summary>How long a timing of an operation that allocates nothing lasts at least.</summary>
    public const double ShortTimingNanoseconds = 2_000_000;

    private readonly Func<int>[] _operations;
    private readonly double _minimumTimingNanoseconds;
    private readonly int[] _repetitions;
    private readonly int[] _timingsPerRound;
    private readonly double[] _best;
    private readonly long[] _operationsTimed;
    private readonly long[] _gen2Collections;
    private readonly bool[] _threadClock;

    /// <param name="operations">The operations, timed in this order in every round.</param>
    /// <param name="minimumTimingNanoseconds">
    /// How long each operation is timed per round at least: in one timing when it allocates, in timings of
    /// <see cref="ShortTimingNanoseconds"/> when it does not.
    /// </param>
    public InterleavedCpuTimer(Func<int>[] operations, double minimumTimingNanoseconds)
    {
        ArgumentNullException.ThrowIfNull(operations);
        ArgumentOutOfRangeException.ThrowIfLessThan(minimumTimingNanoseconds, ShortTimingNanoseconds);
        _operations = operations;
        _minimumTimingNanoseconds = minimumTimingNanoseconds;
        _repetitions = new int[operations.Length];
        _timingsPerRound = new int[operations.Length];
        _best = new double[operations.Length];
        _operationsTimed = new long[operations.Length];
        _gen2Collections = new long[operations.Length];
        _threadClock = new bool[operations.Length];
        Array.Fill(_repetitions, 1);
        Array.Fill(_timingsPerRound, 1);
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

    /// <summary>True when operation <paramref name="index"/> is timed in its thread's CPU time.</summary>
    public bool TimedOnThread(int index) => _threadClock[index];

    /// <summary>
    /// Runs each operation until it is compiled and warm, picks its clock by whether a warm operation allocates, and
    /// sizes its timings from warm operations only.
    /// </summary>
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

            double warmUpAverage = (CpuClock.NowNanoseconds() - start) / (double)count;
            long allocated = GC.GetAllocatedBytesForCurrentThread();
            _operations[i]();
            bool allocates = GC.GetAllocatedBytesForCurrentThread() != allocated;
            _threadClock[i] = !allocates;

            if (allocates)
            {
                _repetitions[i] = Math.Max(1, (int)Math.Ceiling(_minimumTimingNanoseconds / warmUpAverage));
                continue;
            }

            // Sized from warm operations, not from the warm-up's average: the first calls (compilation, a plan built,
            // pools filled) can take longer than all the rest, and the stream processor's 256 KB case sized from them
            // was timed one cold operation at a time (670-750 µs against 390-450 warm: the step that failed).
            _repetitions[i] = 1;
            double perOperation = double.MaxValue;
            for (int n = 0; n < 3; n++)
            {
                perOperation = Math.Min(perOperation, Time(i));
            }

            _repetitions[i] = Math.Max(1, (int)Math.Ceiling(ShortTimingNanoseconds / perOperation));
            _timingsPerRound[i] = Math.Max(1, (int)Math.Round(_minimumTimingNanoseconds / (_repetitions[i] * perOperation)));
        }
    }

    /// <summary>Times every operation in turn, <paramref name="rounds"/> times.</summary>
    public void Measure(int rounds)
    {
        for (int round = 0; round < rounds; round++)
        {
            for (int i = 0; i < _operations.Length; i++)
            {
                // The same heap for every case: no garbage left by the previous case is collected on this one's time.
                GC.Collect();
                GC.WaitForPendingFinalizers();
                GC.Collect();

                // An operation that allocates nothing runs once untimed, warming what the collection left cold (caches,
                // the pools' arrays); the heap stays as the collection left it. One that allocates would leave garbage
                // for its own timing to collect.
                if (_threadClock[i])
                {
                    _operations[i]();
                }

                int gen2 = GC.CollectionCount(2);
                for (int timing = 0; timing < _timingsPerRound[i]; timing++)
                {
                    _best[i] = Math.Min(_best[i], Time(i));
                }

                _gen2Collections[i] += GC.CollectionCount(2) - gen2;
                _operationsTimed[i] += (long)_repetitions[i] * _timingsPerRound[i];
            }
        }
    }

    // One timing of operation i: nanoseconds per operation.
    private double Time(int i)
    {
        bool thread = _threadClock[i];
        long start = thread ? CpuClock.ThreadNowNanoseconds() : CpuClock.NowNanoseconds();
        for (int n = 0; n < _repetitions[i]; n++)
        {
            _operations[i]();
        }

        long end = thread ? CpuClock.ThreadNowNanoseconds() : CpuClock.NowNanoseconds();
        return (end - start) / (double)_repetitions[i];
    }
}
