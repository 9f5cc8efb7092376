using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Filters;

namespace Encryption.Custom.Performance.Tests.Json;

/// <summary>
/// Added to the shared configuration by benchmarks with a <c>Processor</c> parameter: the speedup and efficiency
/// columns, and the filter that runs crypto-only methods once per case.
/// </summary>
public sealed class ProcessorComparisonConfig : ManualConfig
{
    public ProcessorComparisonConfig()
    {
        AddColumn(ProcessorComparisonColumn.Speedup, ProcessorComparisonColumn.Efficiency);
        AddFilter(new SimpleFilter(ProcessorComparison.ShouldRun));
    }
}
