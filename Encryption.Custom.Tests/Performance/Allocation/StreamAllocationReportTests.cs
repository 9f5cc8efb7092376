using System.Text.Json;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Performance.Tests.Allocation;
using Encryption.Custom.Performance.Tests.Documents;
using Encryption.Custom.Tests.Json;

namespace Encryption.Custom.Tests.Performance.Allocation;

/// <summary>
/// The allocation report's core on the small sizes (not timed), and its target check and JSON on hand-made rows.
/// Runs in the allocation tests' collection: alone, so no other test shares the processors' pools meanwhile.
/// </summary>
[Collection(nameof(AllocationTests))]
public sealed class StreamAllocationReportTests
{
    private static readonly int[] s_smallSizes = [1024, 4096, 8192];

    [Fact]
    public void Measure_SmallSizes_StreamProcessorMeetsItsTargetsAndNewtonsoftAllocates_DeterministicNestedBoundCommittedAndTokensIncluded()
    {
        var settings = new AllocationReportSettings { Sizes = s_smallSizes, BytesPerRound = 256 * 1024 };

        IReadOnlyList<AllocationRow> rows = StreamAllocationReport.Measure(settings);

        // shapes (Published, Mixed, Lookup with its deterministic paths, Nested with its selectors, Bound, Committed,
        // Tokens) × sizes × processors × APIs × operations
        Assert.Equal(7 * 3 * 2 * 2 * 2, rows.Count);
        Assert.Contains(rows, row => row.Shape == DocumentShape.Tokens && row.Processor == JsonProcessor.Stream && row.Api == ProcessorApi.BufferWriter && row.Operation == DocumentOperation.Decrypt);
        Assert.Contains(rows, row => row.Shape == DocumentShape.Committed && row.Processor == JsonProcessor.Stream && row.Api == ProcessorApi.BufferWriter && row.Operation == DocumentOperation.Decrypt);
        Assert.Contains(rows, row => row.Shape == DocumentShape.Nested && row.Processor == JsonProcessor.Stream && row.Api == ProcessorApi.BufferWriter && row.Operation == DocumentOperation.Decrypt);
        Assert.Contains(rows, row => row.Shape == DocumentShape.Lookup && row.Processor == JsonProcessor.Stream && row.Api == ProcessorApi.BufferWriter && row.Operation == DocumentOperation.Encrypt);
        Assert.Empty(StreamAllocationReport.FindMisses(rows));
        Assert.All(rows, row => Assert.True(row.RoundTrips));
        Assert.All(rows.Where(row => row.Processor == JsonProcessor.Newtonsoft), row => Assert.True(row.AllocatedBytesPerOp > row.InputBytes, "Newtonsoft builds a DOM"));
        Assert.All(rows.Where(row => row.Operation == DocumentOperation.Encrypt), row => Assert.True(row.OutputBytes > row.InputBytes));
        Assert.All(rows.Where(row => row.Operation == DocumentOperation.Decrypt), row => Assert.Equal(row.Size, row.OutputBytes));
    }

    [Fact]
    public void FindMisses_StreamRowsOverTheirBudget_AreReportedAndNewtonsoftRowsAreNot()
    {
        AllocationRow[] rows =
        [
            Row(JsonProcessor.Stream, ProcessorApi.BufferWriter, 0),
            Row(JsonProcessor.Stream, ProcessorApi.BufferWriter, 8),
            Row(JsonProcessor.Stream, ProcessorApi.Stream, StreamAllocationReport.StreamApiBudgetBytes),
            Row(JsonProcessor.Stream, ProcessorApi.Stream, StreamAllocationReport.StreamApiBudgetBytes + 1),
            Row(JsonProcessor.Newtonsoft, ProcessorApi.BufferWriter, 1_000_000),
            Row(JsonProcessor.Newtonsoft, ProcessorApi.Stream, 1_000_000) with { RoundTrips = false },
        ];

        IReadOnlyList<string> misses = StreamAllocationReport.FindMisses(rows);

        Assert.Equal(3, misses.Count);
        Assert.Contains("8 B per operation, target 0 B", misses[0], StringComparison.Ordinal);
        Assert.Contains("257 B per operation, target 256 B", misses[1], StringComparison.Ordinal);
        Assert.Contains("did not give back the original document", misses[2], StringComparison.Ordinal);
    }

    [Fact]
    public void RatioToBaseline_ComparesWithTheNewtonsoftRowOfTheSameCase()
    {
        AllocationRow stream = Row(JsonProcessor.Stream, ProcessorApi.Stream, 100);
        AllocationRow[] rows = [Row(JsonProcessor.Newtonsoft, ProcessorApi.BufferWriter, 1000), Row(JsonProcessor.Newtonsoft, ProcessorApi.Stream, 400), stream];

        Assert.Equal(0.25, StreamAllocationReport.RatioToBaseline(stream, rows));
        Assert.Null(StreamAllocationReport.RatioToBaseline(stream, [stream]));
    }

    [Fact]
    public void AllocationJson_Write_OneObjectPerRowWithExactlyTheSchemaFields()
    {
        AllocationRow[] rows = [Row(JsonProcessor.Stream, ProcessorApi.BufferWriter, 0), Row(JsonProcessor.Newtonsoft, ProcessorApi.Stream, 1234) with { Operation = DocumentOperation.Decrypt }];
        using var buffer = new MemoryStream();

        AllocationJson.Write(rows, buffer);

        using JsonDocument json = JsonDocument.Parse(buffer.ToArray());
        Assert.Equal(2, json.RootElement.GetArrayLength());
        JsonElement second = json.RootElement[1];
        Assert.Equal(
            ["processor", "operation", "shape", "documentBytes", "outputBytes", "allocatedBytesPerOp", "api"],
            second.EnumerateObject().Select(p => p.Name));
        Assert.Equal("newtonsoft", second.GetProperty("processor").GetString());
        Assert.Equal("decrypt", second.GetProperty("operation").GetString());
        Assert.Equal("mixed", second.GetProperty("shape").GetString());
        Assert.Equal(8192, second.GetProperty("documentBytes").GetInt32());
        Assert.Equal(12000, second.GetProperty("outputBytes").GetInt32());
        Assert.Equal(1234, second.GetProperty("allocatedBytesPerOp").GetInt64());
        Assert.Equal("stream", second.GetProperty("api").GetString());
        Assert.Equal("bufferWriter", json.RootElement[0].GetProperty("api").GetString());
    }

    private static AllocationRow Row(JsonProcessor processor, ProcessorApi api, long allocated) =>
        new(processor, api, DocumentOperation.Encrypt, DocumentShape.Mixed, 8192, 8192, 12000, allocated, 0, RoundTrips: true);
}
