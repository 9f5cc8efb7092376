using System.Globalization;
using System.Text;
using System.Text.Json;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Performance.Tests.Documents;
using Encryption.Custom.Performance.Tests.Infrastructure;

namespace Encryption.Custom.Performance.Tests.Json;

/// <summary>
/// The ratios of performance.md measured in one process: <c>dotnet run -c Release --project
/// Encryption.Custom.Performance.Tests -- InterleavedRatios [--sizes 8192,65536] [--shapes mixed]</c>. It drives the
/// very benchmark methods of <see cref="DocumentEncryptBenchmarks"/> and <see cref="DocumentDecryptBenchmarks"/>
/// (Newtonsoft, Stream, crypto-only), one short timed round of each in turn, and keeps each case's fastest round.
/// </summary>
/// <remarks>
/// On a shared machine BenchmarkDotNet's per-process means drift with the load of the moment, so two cases measured
/// minutes apart can be inflated differently. Interleaving exposes all cases to the same load, the rounds are timed in
/// CPU time of the calling thread (<see cref="CpuClock.ThreadNowNanoseconds"/>: it stands still while another process
/// holds the core, which wall time does not, and it is not charged for a background collection that the Newtonsoft
/// cases started, which process time would be), and the fastest rounds are the ones least disturbed by other
/// processes. Writes
/// <c>BenchmarkDotNet.Artifacts/results/InterleavedRatios.{json,md}</c>; exits 2 on bad arguments, otherwise 0
/// (timings are not a pass/fail check on a shared machine).
/// </remarks>
public static class InterleavedRatios
{
    public const string Name = "InterleavedRatios";

    private const string ResultsDirectory = "BenchmarkDotNet.Artifacts/results";
    // Short rounds: on a loaded machine the scheduler's slices are a few milliseconds, and only rounds that fit
    // between two preemptions show the undisturbed time.
    private static readonly TimeSpan s_roundTime = TimeSpan.FromMilliseconds(2);
    private static readonly TimeSpan s_warmUpTime = TimeSpan.FromMilliseconds(250);

    public static int Run(string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        if (!ReportArguments.TryParse(args, out IReadOnlyList<int>? sizes, out IReadOnlyList<DocumentShape>? shapes, out string? error))
        {
            Console.Error.WriteLine(error);
            Console.Error.WriteLine($"usage: {Name} [--sizes 1024,8192,...] [--shapes published,mixed]");
            return 2;
        }

        Console.WriteLine($"{Name}: fastest round of each case ({(CpuClock.IsCpuTime ? "CPU" : "wall-clock")} time), cases interleaved in one process");
        string machine = string.Join('\n', MachineDescription.Describe().Select(item => $"- {item.Name}: {item.Value}"));
        Console.WriteLine(machine);
        // One untimed pass first, so that tiered compilation of the shared code paths is over before the first row.
        Measure(DocumentShape.Mixed, 4096, rounds: 5);
        var rows = new List<RatioRow>();
        foreach (DocumentShape shape in shapes)
        {
            foreach (int size in sizes)
            {
                RatioRow row = Measure(shape, size);
                rows.Add(row);
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"  {shape,-9} {BenchmarkDocuments.Label(size),6}: encrypt {row.EncryptSpeedup:F2}x (efficiency {row.EncryptEfficiency:F2}), decrypt {row.DecryptSpeedup:F2}x (efficiency {row.DecryptEfficiency:F2})"));
            }
        }

        string table = Table(rows);
        Console.WriteLine();
        Console.Write(table);
        Directory.CreateDirectory(ResultsDirectory);
        File.WriteAllText(Path.Combine(ResultsDirectory, Name + ".md"), $"# {Name}\n\n{machine}\n\n{table}", new UTF8Encoding(false));
        using (FileStream json = File.Create(Path.Combine(ResultsDirectory, Name + ".json")))
        {
            WriteJson(rows, json);
        }

        Console.WriteLine($"Wrote {Path.GetFullPath(Path.Combine(ResultsDirectory, Name))}.{{json,md}}");
        return 0;
    }

    /// <summary>Sets up the six cases of one shape and size and times them interleaved.</summary>
    public static RatioRow Measure(DocumentShape shape, int size, int? rounds = null)
    {
        DocumentEncryptBenchmarks[] encrypt = [Create<DocumentEncryptBenchmarks>(shape, size, JsonProcessor.Newtonsoft), Create<DocumentEncryptBenchmarks>(shape, size, JsonProcessor.Stream)];
        DocumentDecryptBenchmarks[] decrypt = [Create<DocumentDecryptBenchmarks>(shape, size, JsonProcessor.Newtonsoft), Create<DocumentDecryptBenchmarks>(shape, size, JsonProcessor.Stream)];
        try
        {
            Func<int>[] cases = [encrypt[0].Encrypt, encrypt[1].Encrypt, encrypt[1].CryptoOnly, decrypt[0].Decrypt, decrypt[1].Decrypt, decrypt[1].CryptoOnly];
            double[] best = TimeInterleaved(cases, rounds ?? (size >= 1024 * 1024 ? 3 : 40));
            return new RatioRow(shape, size, best[0], best[1], best[2], best[3], best[4], best[5]);
        }
        finally
        {
            foreach (DocumentBenchmarks benchmark in encrypt.Concat<DocumentBenchmarks>(decrypt))
            {
                benchmark.Cleanup();
            }
        }
    }

    private static T Create<T>(DocumentShape shape, int size, JsonProcessor processor)
        where T : DocumentBenchmarks, new()
    {
        var benchmark = new T { Shape = shape, Size = size, Processor = processor };
        benchmark.Setup();
        return benchmark;
    }

    // Nanoseconds per operation: each benchmark method runs DocumentBenchmarks.OperationsPerInvoke operations.
    private static double[] TimeInterleaved(Func<int>[] cases, int rounds)
    {
        var invocations = new int[cases.Length];
        for (int i = 0; i < cases.Length; i++)
        {
            // Warm up (tiered compilation, pools), then size a round to about s_roundTime, both in the clock the rounds
            // are timed in. In wall time a loaded machine's warm-up was over after a few milliseconds of this thread's
            // work, before the starved background compiler had optimized the code: at load 25 the first rows' stream
            // cases measured three times their quiet time while their crypto-only reference did not.
            long warmUpStart = CpuClock.ThreadNowNanoseconds();
            int count = 0;
            while (CpuClock.ThreadNowNanoseconds() - warmUpStart < s_warmUpTime.TotalNanoseconds || count < 2)
            {
                cases[i]();
                count++;
            }

            double perInvocation = (CpuClock.ThreadNowNanoseconds() - warmUpStart) / (double)count;
            invocations[i] = Math.Max(1, (int)(s_roundTime.TotalNanoseconds / perInvocation));
        }

        var best = new double[cases.Length];
        Array.Fill(best, double.MaxValue);
        for (int round = 0; round < rounds; round++)
        {
            for (int i = 0; i < cases.Length; i++)
            {
                long start = CpuClock.ThreadNowNanoseconds();
                for (int n = 0; n < invocations[i]; n++)
                {
                    cases[i]();
                }

                double nanoseconds = (CpuClock.ThreadNowNanoseconds() - start) / (invocations[i] * (double)DocumentBenchmarks.OperationsPerInvoke);
                best[i] = Math.Min(best[i], nanoseconds);
            }
        }

        return best;
    }

    private static string Table(IReadOnlyList<RatioRow> rows)
    {
        var table = new StringBuilder();
        table.Append("| Shape | Size | Newtonsoft encrypt (µs) | Stream encrypt (µs) | Crypto-only encrypt (µs) | Encrypt speedup | Encrypt efficiency | Newtonsoft decrypt (µs) | Stream decrypt (µs) | Crypto-only decrypt (µs) | Decrypt speedup | Decrypt efficiency |\n");
        table.Append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        foreach (RatioRow row in rows)
        {
            table.Append(CultureInfo.InvariantCulture,
                $"| {row.Shape} | {BenchmarkDocuments.Label(row.Size)} | {Micro(row.NewtonsoftEncrypt)} | {Micro(row.StreamEncrypt)} | {Micro(row.CryptoOnlyEncrypt)} | {row.EncryptSpeedup:F2} | {row.EncryptEfficiency:F2} | ");
            table.Append(CultureInfo.InvariantCulture,
                $"{Micro(row.NewtonsoftDecrypt)} | {Micro(row.StreamDecrypt)} | {Micro(row.CryptoOnlyDecrypt)} | {row.DecryptSpeedup:F2} | {row.DecryptEfficiency:F2} |\n");
        }

        return table.ToString();
    }

    private static string Micro(double nanoseconds) => (nanoseconds / 1000).ToString("N1", CultureInfo.InvariantCulture);

    private static void WriteJson(IEnumerable<RatioRow> rows, Stream destination)
    {
        using var writer = new Utf8JsonWriter(destination, new JsonWriterOptions { Indented = true });
        writer.WriteStartArray();
        foreach (RatioRow row in rows)
        {
            writer.WriteStartObject();
            writer.WriteString("shape", row.Shape == DocumentShape.Mixed ? "mixed" : "published");
            writer.WriteNumber("documentBytes", row.Size);
            writer.WriteNumber("newtonsoftEncryptNs", row.NewtonsoftEncrypt);
            writer.WriteNumber("streamEncryptNs", row.StreamEncrypt);
            writer.WriteNumber("cryptoOnlyEncryptNs", row.CryptoOnlyEncrypt);
            writer.WriteNumber("newtonsoftDecryptNs", row.NewtonsoftDecrypt);
            writer.WriteNumber("streamDecryptNs", row.StreamDecrypt);
            writer.WriteNumber("cryptoOnlyDecryptNs", row.CryptoOnlyDecrypt);
            writer.WriteEndObject();
        }

        writer.WriteEndArray();
    }
}
