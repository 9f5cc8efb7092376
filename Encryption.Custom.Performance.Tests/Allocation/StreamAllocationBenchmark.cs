using System.Diagnostics;
using System.Globalization;
using System.Text;
using Encryption.Custom.Performance.Tests.Documents;
using Encryption.Custom.Performance.Tests.Infrastructure;

namespace Encryption.Custom.Performance.Tests.Allocation;

/// <summary>
/// The allocation report: <c>dotnet run -c Release --project Encryption.Custom.Performance.Tests -- StreamAllocationBenchmark
/// [--sizes 1024,8192] [--shapes mixed,published,lookup]</c> (every shape by default, the deterministic Lookup included). Prints the table, writes
/// <c>BenchmarkDotNet.Artifacts/results/StreamAllocationBenchmark.{json,md}</c>, and exits 1 when the stream processor
/// misses a target (0 B with <c>IBufferWriter</c>, ≤ 256 B with <c>Stream</c>) or a round trip fails, 2 on bad arguments.
/// </summary>
public static class StreamAllocationBenchmark
{
    public const string Name = "StreamAllocationBenchmark";

    private const string ResultsDirectory = "BenchmarkDotNet.Artifacts/results";

    public static int Run(string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        if (!ReportArguments.TryParse(args, out IReadOnlyList<int>? sizes, out IReadOnlyList<DocumentShape>? shapes, out string? error, BenchmarkDocuments.AllocationShapes))
        {
            Console.Error.WriteLine(error);
            Console.Error.WriteLine($"usage: {Name} [--sizes 1024,4096,...] [--shapes published,mixed,lookup]");
            return 2;
        }

        var settings = new AllocationReportSettings { Sizes = sizes, Shapes = shapes };

        string machine = string.Join('\n', MachineDescription.Describe().Select(item => $"- {item.Name}: {item.Value}"));
        Console.WriteLine($"{Name}: steady-state managed bytes per operation (lowest of {settings.Rounds} rounds, calling thread)");
        Console.WriteLine(machine);
        var stopwatch = Stopwatch.StartNew();
        IReadOnlyList<AllocationRow> rows = StreamAllocationReport.Measure(settings, row => Console.WriteLine(
            $"  {row.Shape,-9} {BenchmarkDocuments.Label(row.Size),6} {row.Processor,-10} {row.Api,-12} {row.Operation,-7} {row.AllocatedBytesPerOp,12:N0} B/op"));
        stopwatch.Stop();

        string table = AllocationTable.Format(rows);
        IReadOnlyList<string> misses = StreamAllocationReport.FindMisses(rows);
        string verdict = misses.Count == 0
            ? "All stream processor rows meet their targets (0 B with IBufferWriter, ≤ 256 B with Stream) and every round trip succeeded."
            : "MISSED:\n" + string.Join('\n', misses.Select(miss => "- " + miss));
        Console.WriteLine();
        Console.Write(table);
        Console.WriteLine();
        Console.WriteLine(verdict);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"Measured in {stopwatch.Elapsed.TotalSeconds:F1} s."));

        Directory.CreateDirectory(ResultsDirectory);
        string jsonPath = Path.Combine(ResultsDirectory, Name + ".json");
        using (FileStream json = File.Create(jsonPath))
        {
            AllocationJson.Write(rows, json);
        }

        string markdownPath = Path.Combine(ResultsDirectory, Name + ".md");
        File.WriteAllText(markdownPath, Markdown(settings, machine, table, verdict), new UTF8Encoding(encoderShouldEmitUTF8Identifier: false));
        Console.WriteLine($"Wrote {Path.GetFullPath(jsonPath)} and {Path.GetFullPath(markdownPath)}");
        return misses.Count == 0 ? 0 : 1;
    }

    private static string Markdown(AllocationReportSettings settings, string machine, string table, string verdict) =>
        $"""
        # {Name}

        Steady-state managed bytes allocated per operation on the calling thread
        (`GC.GetAllocatedBytesForCurrentThread`), lowest of {settings.Rounds} rounds after a warm-up round; 4 MiB of input
        per round (4–256 operations). Overhead is relative to the operation's input: the plaintext for encrypt, the
        encrypted document for decrypt. "vs Newtonsoft" is this row's bytes divided by the Newtonsoft row's (same
        API). Gen2 GCs counts full collections during the measured rounds. Keys: a generated
        `MdeAeadAes256CbcHmac256Randomized` DEK in protected memory; the encryptor answers from memory. The Lookup shape
        encrypts four small values per block deterministically (the IV derived from the path, type and value).

        {machine}

        {table}
        {verdict}

        """;
}
