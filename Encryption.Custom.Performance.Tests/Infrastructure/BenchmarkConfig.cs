using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Exporters.Json;
using BenchmarkDotNet.Reports;
using Perfolizer.Horology;

namespace Encryption.Custom.Performance.Tests.Infrastructure;

/// <summary>The one configuration every benchmark in this project runs with.</summary>
public static class BenchmarkConfig
{
    public static IConfig Create() =>
        DefaultConfig.Instance
            .AddDiagnoser(MemoryDiagnoser.Default)
            .AddExporter(JsonExporter.Full)
            .AddExporter(MarkdownExporter.GitHub)
            .WithSummaryStyle(SummaryStyle.Default.WithTimeUnit(TimeUnit.Nanosecond))
            .WithOption(ConfigOptions.JoinSummary, false);
}
