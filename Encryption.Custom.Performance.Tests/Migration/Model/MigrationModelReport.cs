using System.Globalization;
using System.Text;

namespace Encryption.Custom.Performance.Tests.Migration.Model;

/// <summary>
/// Prints the migration model's table: <c>dotnet run -c Release --project Encryption.Custom.Performance.Tests --
/// MigrationModel [--documents 1000000000] [--bytes 1024] [--ru 150000] [--instances 1,2,4,8,15,16,20,32]
/// [--write-ru 8] [--read-ru 1] [--reads 2] [--scans 0] [--job-scans 2] [--latency-ms 6] [--parallelism 8] [--cpu-us 150] [--cores 2]
/// [--hours 24]</c>. One row per instance count, then the fewest instances and the smallest budget that finish
/// within the deadline. docs/migration.md ("A billion documents") has the defaults' table and where each number
/// comes from.
/// </summary>
public static class MigrationModelReport
{
    public const string Name = "MigrationModel";

    public static int Run(string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        if (!TryParse(args, out MigrationWorkload workload, out int[] instanceCounts, out TimeSpan deadline, out string? error))
        {
            Console.Error.WriteLine(error);
            Console.Error.WriteLine($"usage: {Name} [--documents N] [--bytes N] [--ru N] [--instances 1,2,4] [--write-ru X] [--read-ru X] [--reads X] [--scans X] [--job-scans X] [--latency-ms X] [--parallelism N] [--cpu-us X] [--cores N] [--hours X]");
            return 2;
        }

        Console.Write(Table(workload, instanceCounts, deadline));
        return 0;
    }

    /// <summary>The report's text for <paramref name="workload"/> at each of <paramref name="instanceCounts"/>.</summary>
    public static string Table(MigrationWorkload workload, IEnumerable<int> instanceCounts, TimeSpan deadline)
    {
        ArgumentNullException.ThrowIfNull(workload);
        ArgumentNullException.ThrowIfNull(instanceCounts);
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture,
            $"{workload.Documents:N0} documents of {workload.DocumentBytes:N0} B at {workload.ContainerRequestUnitsPerSecond:N0} RU/s; {workload.RequestUnitsPerDocument:N1} RU to rewrite and {workload.ScansPerInstance:N0} scans per instance and {workload.ScansPerJob:N0} per job (split by range over the instances), {workload.WriteLatencyMilliseconds:N1} ms and {workload.CpuMicrosecondsPerDocument:N0} µs CPU per document; {workload.MaxDegreeOfParallelism} in flight per instance on {workload.CoresPerInstance} cores\n\n");
        text.Append("| Instances | Partitions | Instances with a lease | Leases (busiest) | Documents/s per instance | Bound by | Scans (h) | Hours |\n");
        text.Append("|---:|---:|---:|---:|---:|---|---:|---:|\n");
        foreach (int instances in instanceCounts)
        {
            MigrationEstimate estimate = MigrationModel.Estimate(workload with { Instances = instances });
            text.Append(CultureInfo.InvariantCulture,
                $"| {instances} | {estimate.PhysicalPartitions} | {estimate.ActiveInstances} | {estimate.MostLeasesPerInstance} | {estimate.DocumentsPerSecondPerInstance:N0} | {estimate.Bound} | {estimate.ScanSeconds / 3600:N1} | {estimate.Hours:N1} |\n");
        }

        text.Append('\n');
        text.Append(MigrationModel.FewestInstancesWithin(workload, deadline) is int fewest
            ? string.Create(CultureInfo.InvariantCulture, $"Within {deadline.TotalHours:N0} h at {workload.ContainerRequestUnitsPerSecond:N0} RU/s: {fewest} instances ({MigrationModel.Estimate(workload with { Instances = fewest }).Hours:N1} h).\n")
            : string.Create(CultureInfo.InvariantCulture, $"Within {deadline.TotalHours:N0} h at {workload.ContainerRequestUnitsPerSecond:N0} RU/s: not reachable with any number of instances (the request units, and each instance's own scans, bind).\n"));
        text.Append(MigrationModel.SmallestBudgetWithin(workload, deadline) is var (budget, needed)
            ? string.Create(CultureInfo.InvariantCulture, $"Smallest budget within {deadline.TotalHours:N0} h: {budget:N0} RU/s with {needed} instances.\n")
            : "Smallest budget: none found up to 64 times one instance's request-unit floor.\n");
        return text.ToString();
    }

    private static bool TryParse(string[] args, out MigrationWorkload workload, out int[] instanceCounts, out TimeSpan deadline, out string? error)
    {
        workload = new MigrationWorkload();
        instanceCounts = [1, 2, 4, 8, 15, 16, 20, 32];
        deadline = TimeSpan.FromHours(24);
        error = null;
        for (int i = 0; i < args.Length; i += 2)
        {
            if (i + 1 >= args.Length || !double.TryParse(args[i + 1].Split(',')[0], NumberStyles.Float, CultureInfo.InvariantCulture, out double value) || value < 0 || (value == 0 && args[i] is not ("--scans" or "--job-scans")))
            {
                error = $"'{args[i]}' needs a positive number (--scans and --job-scans may be 0).";
                return false;
            }

            switch (args[i])
            {
                case "--documents": workload = workload with { Documents = (long)value }; break;
                case "--bytes": workload = workload with { DocumentBytes = (int)value }; break;
                case "--ru": workload = workload with { ContainerRequestUnitsPerSecond = value }; break;
                case "--write-ru": workload = workload with { WriteRequestUnits = value }; break;
                case "--read-ru": workload = workload with { ReadRequestUnits = value }; break;
                case "--reads": workload = workload with { ReadsPerDocument = value }; break;
                case "--scans": workload = workload with { ScansPerInstance = value }; break;
                case "--job-scans": workload = workload with { ScansPerJob = value }; break;
                case "--latency-ms": workload = workload with { WriteLatencyMilliseconds = value }; break;
                case "--parallelism": workload = workload with { MaxDegreeOfParallelism = (int)value }; break;
                case "--cpu-us": workload = workload with { CpuMicrosecondsPerDocument = value }; break;
                case "--cores": workload = workload with { CoresPerInstance = (int)value }; break;
                case "--hours": deadline = TimeSpan.FromHours(value); break;
                case "--instances":
                    instanceCounts = args[i + 1].Split(',').Select(s => int.TryParse(s, NumberStyles.None, CultureInfo.InvariantCulture, out int n) && n > 0 ? n : -1).ToArray();
                    if (instanceCounts.Any(n => n < 1))
                    {
                        error = $"--instances takes positive whole numbers: '{args[i + 1]}'.";
                        return false;
                    }

                    break;
                default:
                    error = $"Unknown argument '{args[i]}'.";
                    return false;
            }
        }

        return true;
    }
}
