using BenchmarkDotNet.Running;
using Encryption.Custom.Performance.Tests.Allocation;
using Encryption.Custom.Performance.Tests.Infrastructure;
using Encryption.Custom.Performance.Tests.Json;
using Encryption.Custom.Performance.Tests.Migration;
using Encryption.Custom.Performance.Tests.Scaling;

namespace Encryption.Custom.Performance.Tests;

/// <summary>
/// Entry point: <c>dotnet run -c Release --project Encryption.Custom.Performance.Tests -- --filter '*'</c> for the
/// BenchmarkDotNet benchmarks, <c>-- StreamAllocationBenchmark</c> for the fast allocation report, or
/// <c>-- InterleavedRatios</c> for the speedup and efficiency ratios measured in one process, <c>-- ScalingCheck</c> for
/// the check that cost grows linearly with document and policy size, or
/// <c>-- MigrationThroughput</c> for the migration job's documents per second against an endpoint, <c>-- MigrationScaling</c>
/// for how that rate grows with instances, <c>-- MigrationModel</c>
/// for the model of a migration too large to try, <c>-- BatchEncryptRatios</c> for the
/// multi-value AES-CBC experiment, <c>-- BoundCellCost</c> for what bound cells cost, or <c>-- QueryCharge</c> for the
/// request charge of range and prefix queries against an endpoint (docs/benchmarks.md).
/// </summary>
public static class Program
{
    public static int Main(string[] args)
    {
        // The in-process reports are not BenchmarkDotNet benchmarks: they run in this process and must come first.
        if (args.Length > 0 && string.Equals(args[0], StreamAllocationBenchmark.Name, StringComparison.OrdinalIgnoreCase))
        {
            return StreamAllocationBenchmark.Run(args[1..]);
        }

        if (args.Length > 0 && string.Equals(args[0], InterleavedRatios.Name, StringComparison.OrdinalIgnoreCase))
        {
            return InterleavedRatios.Run(args[1..]);
        }

        if (args.Length > 0 && string.Equals(args[0], AllocationProfile.Name, StringComparison.OrdinalIgnoreCase))
        {
            return AllocationProfile.Run(args[1..]);
        }

        if (args.Length > 0 && string.Equals(args[0], HotLoop.Name, StringComparison.OrdinalIgnoreCase))
        {
            return HotLoop.Run(args[1..]);
        }

        if (args.Length > 0 && string.Equals(args[0], Crypto.Interleaved.BatchEncryptRatios.Name, StringComparison.OrdinalIgnoreCase))
        {
            return Crypto.Interleaved.BatchEncryptRatios.Run(args[1..]);
        }

        if (args.Length > 0 && string.Equals(args[0], Crypto.Binding.BoundCellCost.Name, StringComparison.OrdinalIgnoreCase))
        {
            return Crypto.Binding.BoundCellCost.Run(args[1..]);
        }

        if (args.Length > 0 && string.Equals(args[0], ScalingCheck.Name, StringComparison.OrdinalIgnoreCase))
        {
            return ScalingCheck.Run(args[1..]);
        }

        if (args.Length > 0 && string.Equals(args[0], Migration.Model.MigrationModelReport.Name, StringComparison.OrdinalIgnoreCase))
        {
            return Migration.Model.MigrationModelReport.Run(args[1..]);
        }

        if (args.Length > 0 && string.Equals(args[0], MigrationScaling.Name, StringComparison.OrdinalIgnoreCase))
        {
            return MigrationScaling.RunAsync(args[1..]).GetAwaiter().GetResult();
        }

        if (args.Length > 0 && string.Equals(args[0], Cosmos.QueryCharge.Name, StringComparison.OrdinalIgnoreCase))
        {
            return Cosmos.QueryCharge.RunAsync(args[1..]).GetAwaiter().GetResult();
        }

        if (args.Length > 0 && string.Equals(args[0], MigrationThroughput.Name, StringComparison.OrdinalIgnoreCase))
        {
            return MigrationThroughput.RunAsync(args[1..]).GetAwaiter().GetResult();
        }

        var summaries = BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, BenchmarkConfig.Create());

        // BenchmarkSwitcher reports failures only in its output; CI and scripts need an exit code.
        foreach (var summary in summaries)
        {
            if (summary.HasCriticalValidationErrors || summary.Reports.Any(report => !report.Success))
            {
                return 1;
            }
        }

        return 0;
    }
}
