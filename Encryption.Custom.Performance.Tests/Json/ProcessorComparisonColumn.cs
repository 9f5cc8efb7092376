using System.Globalization;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;

namespace Encryption.Custom.Performance.Tests.Json;

/// <summary>
/// The two ratios of performance.md as summary columns, read off one run: the speedup over the Newtonsoft baseline
/// (its mean ÷ this mean, same method and parameters) and the efficiency (the crypto-only mean ÷ this mean).
/// BenchmarkDotNet 0.14 has no baseline by parameter value, hence these columns.
/// </summary>
public sealed class ProcessorComparisonColumn : IColumn
{
    private readonly bool _efficiency;

    private ProcessorComparisonColumn(bool efficiency) => _efficiency = efficiency;

    public static IColumn Speedup { get; } = new ProcessorComparisonColumn(efficiency: false);

    public static IColumn Efficiency { get; } = new ProcessorComparisonColumn(efficiency: true);

    public string Id => _efficiency ? "CryptoEfficiency" : "SpeedupVsNewtonsoft";

    public string ColumnName => _efficiency ? "Efficiency" : "vs Newtonsoft";

    public bool AlwaysShow => true;

    public ColumnCategory Category => ColumnCategory.Baseline;

    public int PriorityInCategory => _efficiency ? 1 : 0;

    public bool IsNumeric => true;

    public UnitType UnitType => UnitType.Dimensionless;

    public string Legend => _efficiency
        ? "Crypto-only mean ÷ this mean: the share of the time spent in the AEAD (same values, same key)"
        : "Newtonsoft mean ÷ this mean (same method and parameters): how many times faster than the baseline";

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, summary.Style);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
    {
        if (ProcessorComparison.CryptoOnlyOf(benchmarkCase) is not null || ProcessorComparison.Mean(summary, benchmarkCase) is not double mean || mean <= 0)
        {
            return "-";
        }

        double? other = _efficiency ? CryptoOnlyMean(summary, benchmarkCase) : ProcessorComparison.MeanOfPeer(summary, benchmarkCase, benchmarkCase.Descriptor.WorkloadMethod.Name, JsonProcessor.Newtonsoft);
        return other is double value ? (value / mean).ToString("F2", CultureInfo.InvariantCulture) : "-";
    }

    public bool IsAvailable(Summary summary) => true;

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public override string ToString() => ColumnName;

    private static double? CryptoOnlyMean(Summary summary, BenchmarkCase benchmarkCase)
    {
        string documentMethod = benchmarkCase.Descriptor.WorkloadMethod.Name;
        BenchmarkCase? cryptoOnly = summary.BenchmarksCases.FirstOrDefault(c => ProcessorComparison.CryptoOnlyOf(c)?.DocumentMethod == documentMethod && c.Descriptor.Type == benchmarkCase.Descriptor.Type);
        return cryptoOnly is null ? null : ProcessorComparison.MeanOfPeer(summary, benchmarkCase, cryptoOnly.Descriptor.WorkloadMethod.Name, JsonProcessor.Stream);
    }
}
