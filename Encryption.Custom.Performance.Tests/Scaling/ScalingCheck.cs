using System.Globalization;
using System.Text;
using System.Text.Json;
using Encryption.Custom.Json;
using Encryption.Custom.Performance.Tests.Documents;
using Encryption.Custom.Performance.Tests.Infrastructure;

namespace Encryption.Custom.Performance.Tests.Scaling;

/// <summary>
/// The check that cost grows linearly with document and policy size: <c>dotnet run -c Release --project
/// Encryption.Custom.Performance.Tests -- ScalingCheck [--sizes 65536,262144,1048576,4194304] [--rounds 5]
/// [--max-step 5]</c>. The Mixed document at each size, with its paths (one ~400-byte note per ~830-byte block, and a
/// small value every third block: the path count grows with the size), encrypted and decrypted by both processors.
/// Each 4× step in size may cost at most <c>--max-step</c> times as much (5 by default). Exits 1 on a violation.
/// </summary>
/// <remarks>
/// <para>
/// The Newtonsoft processor is judged on steps up to <c>--newtonsoft-max-size</c> (256 KB by default) and only
/// reported above: from about 1 MB its parsed tree (a JObject of ~20,000 properties whose child list and name
/// dictionary are arrays on the large-object heap, filled while young collections run) makes every young collection
/// rescan those arrays, so its cost grows faster than the document in the garbage collector, not in our code: with a
/// 256 MB young generation (<c>DOTNET_GCgen0size</c>) the 256 KB → 1 MB step fell from 10-14× to 4.5-5.6× on the
/// benchmark machine (docs/benchmarks.md). Its steps up to 256 KB still catch a per-name lookup that is linear in the
/// number of paths (7× there with the old case-variant loop; 5.3-5.7× on the quadratic commit). <c>eng/benchmark.sh</c>
/// runs the check with a 64 MB young generation (<c>DOTNET_GCgen0size=0x4000000</c>): with the 256 KB young generation
/// this VM gets by default, even the 256 KB document's tree was promoted mid-operation and that step measured 3.8–13×
/// from run to run on one build. For a while every Newtonsoft step was judged under that setting; on a quiet machine
/// they measured 3.8–4.9×, but at load 30 its 1 MB and 4 MB operations (18 and 90 ms of CPU, spent mostly in the
/// collector over tens of megabytes) measured 5.1–5.8× for a step in four runs of five: a CPU clock cannot take out
/// the memory stalls of a memory-bound operation beside memory-bound neighbours. So the default is 256 KB again, and
/// the larger steps are reported.
/// </para>
/// <para>
/// Built to pass or fail the same way on a quiet machine and on one at load 20-30 (docs/benchmarks.md, "A scaling
/// check that holds under load"). It compares ratios within one run, never absolute times; it times CPU time, which
/// stands still while another process holds the core (<see cref="InterleavedCpuTimer"/>: the thread's own for an
/// operation that allocates nothing, in short timings of which the fastest counts; the process's for one that
/// allocates); all cases run in turn in every round, so a slow phase of the machine hits all of them; every size
/// rotates over copies of its document adding up to the largest document, so that no size is served from a cache
/// another cannot fit in; a full collection before each case's timings gives every case the same heap to start from;
/// and a step that fails is measured again with as many more rounds before it counts. A quadratic lookup (the
/// case-variant check that looped over every path per unmatched name, before commit cade030) costs the stream
/// processor 9.7×, 13.2× and 14.1× per 4× step here: far outside the margin.
/// Writes <c>BenchmarkDotNet.Artifacts/results/ScalingCheck.{md,json}</c>.
/// </para>
/// </remarks>
public static class ScalingCheck
{
    public const string Name = "ScalingCheck";

    private const string ResultsDirectory = "BenchmarkDotNet.Artifacts/results";

    // Each timing spans at least this much CPU time: one operation at the large sizes, many at the small ones.
    private const double MinimumTimingNanoseconds = 20_000_000;

    private static readonly int[] s_defaultSizes = [64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024];

    public static int Run(string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        if (!TryParse(args, out int[] sizes, out int rounds, out double maxStep, out int newtonsoftMaxSize, out string? error))
        {
            Console.Error.WriteLine(error);
            Console.Error.WriteLine($"usage: {Name} [--sizes 65536,262144,...] [--rounds 5] [--max-step 5] [--newtonsoft-max-size 262144]");
            return 2;
        }

        Console.WriteLine($"{Name}: Mixed shape, best {(CpuClock.IsCpuTime ? "CPU" : "wall-clock")} time per operation, cases interleaved in one process, every size rotating over {BenchmarkDocuments.Label(sizes.Max())} of copies");
        string loadAtStart = LoadAverage();
        string machine = string.Join('\n', MachineDescription.Describe().Select(item => $"- {item.Name}: {item.Value}"));
        Console.WriteLine(machine);

        var cases = new List<ScalingCase>();
        try
        {
            // Every size rotates over the same number of bytes (the largest document's), so that every case reads its
            // input from the same level of the memory hierarchy: a small document alone would stay in the core's own
            // cache and a large one could not, and the step between them would measure the cache, not the code.
            int footprint = sizes.Max();
            foreach (int size in sizes)
            {
                BenchmarkDocument document = BenchmarkDocuments.Create(DocumentShape.Mixed, size);
                int copies = Math.Max(1, footprint / size);
                foreach (JsonProcessor processor in new[] { JsonProcessor.Stream, JsonProcessor.Newtonsoft })
                {
                    cases.Add(new ScalingCase(processor, ScalingOperation.Encrypt, document, copies));
                    cases.Add(new ScalingCase(processor, ScalingOperation.Decrypt, document, copies));
                }
            }

            var timer = new InterleavedCpuTimer(cases.Select(c => (Func<int>)c.Run).ToArray(), MinimumTimingNanoseconds);
            timer.WarmUp();
            timer.Measure(rounds);
            List<ScalingStep> steps = Steps(cases, timer, maxStep, newtonsoftMaxSize);
            if (steps.Any(step => !step.Passed))
            {
                Console.WriteLine($"A step is over its limit; measuring {rounds} more rounds before it counts.");
                timer.Measure(rounds);
                steps = Steps(cases, timer, maxStep, newtonsoftMaxSize);
            }

            // The load the check ran at, since it is meant to hold under load (Linux; "unknown" elsewhere).
            string load = $"- load average (1, 5, 15 min) at start: {loadAtStart}; at end: {LoadAverage()}";
            machine += "\n" + load;
            Console.WriteLine(load);
            string table = Table(steps);
            Console.WriteLine();
            Console.Write(table);
            Write(machine, table, steps);
            List<ScalingStep> failed = steps.Where(step => !step.Passed).ToList();
            foreach (ScalingStep step in failed)
            {
                Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"{Name}: {step.Processor} {step.Operation} {BenchmarkDocuments.Label(step.SmallSize)} -> {BenchmarkDocuments.Label(step.LargeSize)} costs {step.CostRatio:F1}x, over the {step.Allowed:F1}x a {step.SizeRatio:F0}x larger document may cost: not linear."));
            }

            return failed.Count == 0 ? 0 : 1;
        }
        finally
        {
            foreach (ScalingCase scalingCase in cases)
            {
                scalingCase.Dispose();
            }
        }
    }

    private static string LoadAverage() =>
        File.Exists("/proc/loadavg") ? string.Join(", ", File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : "unknown";

    private static List<ScalingStep> Steps(List<ScalingCase> cases, InterleavedCpuTimer timer, double maxStep, int newtonsoftMaxSize)
    {
        var steps = new List<ScalingStep>();
        foreach (IGrouping<(JsonProcessor, ScalingOperation), int> series in Enumerable.Range(0, cases.Count).GroupBy(i => (cases[i].Processor, cases[i].Operation)))
        {
            int[] bySize = series.OrderBy(i => cases[i].Size).ToArray();
            for (int n = 1; n < bySize.Length; n++)
            {
                int small = bySize[n - 1];
                int large = bySize[n];
                steps.Add(new ScalingStep(
                    cases[small].Processor,
                    cases[small].Operation,
                    cases[small].Size,
                    cases[large].Size,
                    cases[small].PathCount,
                    cases[large].PathCount,
                    timer.Best[small],
                    timer.Best[large],
                    timer.FullCollectionsPerOperation(small),
                    timer.FullCollectionsPerOperation(large),
                    maxStep,
                    timer.TimedOnThread(small) && timer.TimedOnThread(large),
                    Judged: cases[large].Processor != JsonProcessor.Newtonsoft || cases[large].Size <= newtonsoftMaxSize));
            }
        }

        return steps;
    }

    private static string Table(IEnumerable<ScalingStep> steps)
    {
        var table = new StringBuilder();
        table.Append("| Processor | Operation | Step | Paths | Small (µs) | Large (µs) | Cost ratio | Allowed | Result | Full GCs per operation | CPU clock |\n");
        table.Append("|---|---|---|---|---:|---:|---:|---:|---|---|---|\n");
        foreach (ScalingStep step in steps)
        {
            table.Append(CultureInfo.InvariantCulture,
                $"| {step.Processor} | {step.Operation} | {BenchmarkDocuments.Label(step.SmallSize)} → {BenchmarkDocuments.Label(step.LargeSize)} | {step.SmallPaths:N0} → {step.LargePaths:N0} | ");
            table.Append(CultureInfo.InvariantCulture,
                $"{step.SmallNanoseconds / 1000:N1} | {step.LargeNanoseconds / 1000:N1} | {step.CostRatio:F2} | {step.Allowed:F2} | {step.Result} | {step.SmallFullCollections:F2} → {step.LargeFullCollections:F2} | {step.Clock} |\n");
        }

        return table.ToString();
    }

    private static void Write(string machine, string table, IEnumerable<ScalingStep> steps)
    {
        Directory.CreateDirectory(ResultsDirectory);
        File.WriteAllText(Path.Combine(ResultsDirectory, Name + ".md"), $"# {Name}\n\n{machine}\n\n{table}", new UTF8Encoding(false));
        using FileStream file = File.Create(Path.Combine(ResultsDirectory, Name + ".json"));
        using var writer = new Utf8JsonWriter(file, new JsonWriterOptions { Indented = true });
        writer.WriteStartArray();
        foreach (ScalingStep step in steps)
        {
            writer.WriteStartObject();
            writer.WriteString("processor", step.Processor.ToString());
            writer.WriteString("operation", step.Operation.ToString());
            writer.WriteNumber("smallBytes", step.SmallSize);
            writer.WriteNumber("largeBytes", step.LargeSize);
            writer.WriteNumber("smallPaths", step.SmallPaths);
            writer.WriteNumber("largePaths", step.LargePaths);
            writer.WriteNumber("smallNs", step.SmallNanoseconds);
            writer.WriteNumber("largeNs", step.LargeNanoseconds);
            writer.WriteNumber("smallFullCollectionsPerOperation", step.SmallFullCollections);
            writer.WriteNumber("largeFullCollectionsPerOperation", step.LargeFullCollections);
            writer.WriteNumber("costRatio", step.CostRatio);
            writer.WriteNumber("allowedRatio", step.Allowed);
            writer.WriteString("cpuClock", step.Clock);
            writer.WriteBoolean("judged", step.Judged);
            writer.WriteBoolean("passed", step.Passed);
            writer.WriteEndObject();
        }

        writer.WriteEndArray();
    }

    private static bool TryParse(string[] args, out int[] sizes, out int rounds, out double maxStep, out int newtonsoftMaxSize, out string? error)
    {
        sizes = s_defaultSizes;
        rounds = 5;
        maxStep = 5;
        // Up to 256 KB the Newtonsoft processor's cost is its code's; above, the collector's (remarks).
        newtonsoftMaxSize = 256 * 1024;
        error = null;
        for (int i = 0; i < args.Length; i += 2)
        {
            string? value = i + 1 < args.Length ? args[i + 1] : null;
            switch (args[i])
            {
                case "--sizes" when value is not null:
                    sizes = value.Split(',').Select(s => int.TryParse(s, NumberStyles.None, CultureInfo.InvariantCulture, out int size) ? size : -1).ToArray();
                    if (sizes.Length < 2 || sizes.Any(size => size < BenchmarkDocuments.MinimumSize) || sizes.Distinct().Count() != sizes.Length)
                    {
                        error = $"--sizes takes at least two different byte counts of at least {BenchmarkDocuments.MinimumSize}: '{value}'.";
                        return false;
                    }

                    break;
                case "--rounds" when value is not null && int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out int parsedRounds) && parsedRounds > 0:
                    rounds = parsedRounds;
                    break;
                case "--max-step" when value is not null && double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out double parsedStep) && parsedStep >= 4:
                    maxStep = parsedStep;
                    break;
                case "--newtonsoft-max-size" when value is not null && int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out int parsedMax):
                    newtonsoftMaxSize = parsedMax;
                    break;
                default:
                    error = $"Unknown or invalid argument '{args[i]}' (--rounds > 0, --max-step >= 4).";
                    return false;
            }
        }

        return true;
    }
}
