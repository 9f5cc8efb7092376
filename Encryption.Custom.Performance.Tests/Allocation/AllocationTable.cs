using System.Globalization;
using System.Text;
using Encryption.Custom.Performance.Tests.Documents;

namespace Encryption.Custom.Performance.Tests.Allocation;

/// <summary>The report's table as GitHub Markdown (also what the console shows).</summary>
public static class AllocationTable
{
    private static readonly string[] s_header =
    [
        "Shape", "Size", "Processor", "API", "Operation", "Input (B)", "Output (B)", "Allocated (B/op)",
        "Overhead (% of input)", "B per input KB", "vs Newtonsoft", "Gen2 GCs",
    ];

    public static string Format(IReadOnlyList<AllocationRow> rows)
    {
        ArgumentNullException.ThrowIfNull(rows);
        var table = new StringBuilder();
        AppendLine(table, s_header);
        AppendLine(table, s_header.Select((_, i) => i < 5 ? "---" : "---:"));
        foreach (AllocationRow row in rows)
        {
            AppendLine(table, Cells(row, rows));
        }

        return table.ToString();
    }

    private static IEnumerable<string> Cells(AllocationRow row, IReadOnlyList<AllocationRow> rows)
    {
        double? ratio = StreamAllocationReport.RatioToBaseline(row, rows);
        yield return row.Shape.ToString();
        yield return BenchmarkDocuments.Label(row.Size);
        yield return row.Processor.ToString();
        yield return row.Api == ProcessorApi.BufferWriter ? "IBufferWriter" : "Stream";
        yield return row.Operation.ToString();
        yield return Integer(row.InputBytes);
        yield return Integer(row.OutputBytes);
        yield return Integer(row.AllocatedBytesPerOp);
        yield return Decimal(row.OverheadPercent);
        yield return Decimal(row.BytesPerInputKilobyte);
        yield return ratio switch
        {
            null => "n/a",
            0 => "0",
            double value => value.ToString(value >= 0.1 ? "F2" : "G2", CultureInfo.InvariantCulture),
        };
        yield return Integer(row.Gen2Collections);
    }

    private static string Integer(long value) => value.ToString("N0", CultureInfo.InvariantCulture);

    private static string Decimal(double value) => value switch
    {
        0 => "0",
        < 10 => value.ToString("F2", CultureInfo.InvariantCulture),
        _ => value.ToString("N0", CultureInfo.InvariantCulture),
    };

    private static void AppendLine(StringBuilder table, IEnumerable<string> cells) =>
        table.Append("| ").AppendJoin(" | ", cells).Append(" |\n");
}
