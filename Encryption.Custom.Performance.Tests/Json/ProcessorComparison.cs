using System.Reflection;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;

namespace Encryption.Custom.Performance.Tests.Json;

/// <summary>
/// Finds, for a benchmark case with a <c>Processor</c> parameter, the cases it is compared with in the same summary:
/// the Newtonsoft case of the same method and parameters, and the crypto-only case of the same parameters.
/// </summary>
internal static class ProcessorComparison
{
    public const string ProcessorParameter = "Processor";

    public static JsonProcessor? ProcessorOf(BenchmarkCase benchmarkCase) =>
        benchmarkCase.Parameters.Items.FirstOrDefault(p => p.Name == ProcessorParameter)?.Value is JsonProcessor processor ? processor : null;

    public static CryptoOnlyAttribute? CryptoOnlyOf(BenchmarkCase benchmarkCase) =>
        benchmarkCase.Descriptor.WorkloadMethod.GetCustomAttribute<CryptoOnlyAttribute>();

    /// <summary>Methods that do not depend on the processor run under the stream processor's value only.</summary>
    public static bool ShouldRun(BenchmarkCase benchmarkCase) =>
        benchmarkCase.Descriptor.WorkloadMethod.GetCustomAttribute<ProcessorIndependentAttribute>() is null
        || ProcessorOf(benchmarkCase) == JsonProcessor.Stream;

    /// <summary>The mean time in nanoseconds of the case of <paramref name="method"/> and <paramref name="processor"/> with the other parameters of <paramref name="benchmarkCase"/>.</summary>
    public static double? MeanOfPeer(Summary summary, BenchmarkCase benchmarkCase, string method, JsonProcessor processor)
    {
        foreach (BenchmarkCase candidate in summary.BenchmarksCases)
        {
            if (candidate.Descriptor.Type == benchmarkCase.Descriptor.Type
                && candidate.Descriptor.WorkloadMethod.Name == method
                && candidate.Job.DisplayInfo == benchmarkCase.Job.DisplayInfo
                && ProcessorOf(candidate) == processor
                && SameParametersExceptProcessor(candidate, benchmarkCase))
            {
                return summary[candidate]?.ResultStatistics?.Mean;
            }
        }

        return null;
    }

    public static double? Mean(Summary summary, BenchmarkCase benchmarkCase) => summary[benchmarkCase]?.ResultStatistics?.Mean;

    private static bool SameParametersExceptProcessor(BenchmarkCase left, BenchmarkCase right) =>
        left.Parameters.Items.Where(p => p.Name != ProcessorParameter).All(p =>
            right.Parameters.Items.Any(q => q.Name == p.Name && Equals(q.Value, p.Value)));
}
