using BenchmarkDotNet.Running;
using Encryption.Custom.Performance.Tests.Infrastructure;

namespace Encryption.Custom.Performance.Tests;

/// <summary>Entry point: <c>dotnet run -c Release --project Encryption.Custom.Performance.Tests -- --filter '*'</c>.</summary>
public static class Program
{
    public static int Main(string[] args)
    {
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
