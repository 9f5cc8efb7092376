namespace Encryption.Custom.Performance.Tests.Documents;

/// <summary>
/// Generates the benchmark documents deterministically from a seed: the same seed, shape and size give the same bytes
/// in every process, so the allocation report, the BenchmarkDotNet benchmarks and the tests see identical input.
/// </summary>
public static class BenchmarkDocuments
{
    /// <summary>The seed the report and the benchmarks use.</summary>
    public const int DefaultSeed = 20261122;

    /// <summary>The smallest size a shape can be generated at.</summary>
    public const int MinimumSize = 512;

    /// <summary>The document sizes of performance.md: 1 KB, 4 KB, 8 KB, 64 KB, 1 MB.</summary>
    public static IReadOnlyList<int> Sizes { get; } = [1024, 4096, 8192, 65536, 1024 * 1024];

    /// <summary>The shapes the throughput benchmarks and ratios run over.</summary>
    public static IReadOnlyList<DocumentShape> Shapes { get; } = [DocumentShape.Published, DocumentShape.Mixed];

    /// <summary>
    /// The shapes the allocation report runs over: <see cref="Shapes"/>, the deterministic <see cref="DocumentShape.Lookup"/>,
    /// <see cref="DocumentShape.Nested"/>, and the format 101 <see cref="DocumentShape.Bound"/>, <see cref="DocumentShape.Committed"/>
    /// and <see cref="DocumentShape.Tokens"/>.
    /// </summary>
    public static IReadOnlyList<DocumentShape> AllocationShapes { get; } =
        [DocumentShape.Published, DocumentShape.Mixed, DocumentShape.Lookup, DocumentShape.Nested, DocumentShape.Bound, DocumentShape.Committed, DocumentShape.Tokens];

    /// <summary>A compact, ASCII-only document of exactly <paramref name="size"/> bytes.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="size"/> is below <see cref="MinimumSize"/> or <paramref name="shape"/> is unknown.</exception>
    public static BenchmarkDocument Create(DocumentShape shape, int size, int seed = DefaultSeed)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(size, MinimumSize);

        // System.Random with an explicit seed is a fixed algorithm, stable across processes and runtime versions.
        var random = new Random(unchecked((seed * 397) ^ (size * 31) ^ ((int)shape * 7919)));
        return shape switch
        {
            DocumentShape.Published => PublishedDocumentBuilder.Build(size, random),
            DocumentShape.Mixed => MixedDocumentBuilder.Build(size, random, lookupKeys: false),
            DocumentShape.Lookup => MixedDocumentBuilder.Build(size, random, lookupKeys: true),
            DocumentShape.Nested => NestedDocumentBuilder.Build(size, random),
            DocumentShape.Bound or DocumentShape.Committed => BoundDocumentBuilder.Build(shape, size, random),
            DocumentShape.Tokens => TokenDocumentBuilder.Build(size, random),
            _ => throw new ArgumentOutOfRangeException(nameof(shape), shape, "Unknown document shape."),
        };
    }

    /// <summary>"1 KB", "64 KB", "1 MB": how sizes are labelled in tables and charts.</summary>
    public static string Label(int size) => size switch
    {
        >= 1024 * 1024 when size % (1024 * 1024) == 0 => $"{size / (1024 * 1024)} MB",
        >= 1024 when size % 1024 == 0 => $"{size / 1024} KB",
        _ => $"{size} B",
    };
}
