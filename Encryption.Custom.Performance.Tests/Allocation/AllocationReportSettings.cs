using Encryption.Custom.Performance.Tests.Documents;

namespace Encryption.Custom.Performance.Tests.Allocation;

/// <summary>What the allocation report measures and how long it counts; the defaults are the published report.</summary>
public sealed class AllocationReportSettings
{
    public IReadOnlyList<int> Sizes { get; init; } = BenchmarkDocuments.Sizes;

    public IReadOnlyList<DocumentShape> Shapes { get; init; } = BenchmarkDocuments.AllocationShapes;

    /// <summary>Measured rounds per row; the lowest round counts. Default 3.</summary>
    public int Rounds { get; init; } = 3;

    /// <summary>
    /// Input bytes processed per round (default 4 MiB), bounded to 4–256 operations: 256 operations at 1–8 KB, 4 at
    /// 1 MB — still enough that a single 85 KB Large Object Heap allocation would show as over 20 KB per operation.
    /// </summary>
    public int BytesPerRound { get; init; } = 4 * 1024 * 1024;

    public int OperationsPerRound(int size) => Math.Clamp(BytesPerRound / size, 4, 256);
}
