using System.Diagnostics;
using System.Globalization;

namespace Encryption.Custom.Performance.Tests.Crypto.Interleaved;

/// <summary>
/// <c>-- BatchEncryptRatios</c>: the <see cref="BatchEncryptBenchmarks"/> methods run alternately in many short
/// rounds in this process, reporting each one's fastest round. On a shared, loaded machine the minimum is the number
/// least disturbed by other work, and alternating keeps drift (frequency, neighbours) from favouring one method.
/// </summary>
internal static class BatchEncryptRatios
{
    public const string Name = "BatchEncryptRatios";

    public static int Run(string[] args)
    {
        int rounds = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 200;
        const int OperationsPerRound = 200;
        var benchmarks = new BatchEncryptBenchmarks();
        benchmarks.Setup();
        (string Name, Func<int> Run)[] methods =
        [
            (nameof(BatchEncryptBenchmarks.PerValueOpenSsl), benchmarks.PerValueOpenSsl),
            (nameof(BatchEncryptBenchmarks.BatchInterleavedFour), benchmarks.BatchInterleavedFour),
            (nameof(BatchEncryptBenchmarks.BatchOneChainAtATime), benchmarks.BatchOneChainAtATime),
            (nameof(BatchEncryptBenchmarks.ProductEncryptBatch), benchmarks.ProductEncryptBatch),
        ];
        double[] best = [.. methods.Select(_ => double.MaxValue)];
        for (int round = 0; round < rounds; round++)
        {
            for (int m = 0; m < methods.Length; m++)
            {
                long start = Stopwatch.GetTimestamp();
                for (int i = 0; i < OperationsPerRound; i++)
                {
                    methods[m].Run();
                }

                double nanoseconds = Stopwatch.GetElapsedTime(start).TotalNanoseconds / OperationsPerRound;
                best[m] = Math.Min(best[m], nanoseconds);
            }
        }

        benchmarks.Cleanup();
        Console.WriteLine($"Mixed 8 KB values, fastest of {rounds} alternating rounds of {OperationsPerRound} documents:");
        for (int m = 0; m < methods.Length; m++)
        {
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{methods[m].Name,-22} {best[m],10:F0} ns/document  speedup vs per-value OpenSSL {best[0] / best[m]:F2}x"));
        }

        return 0;
    }
}
