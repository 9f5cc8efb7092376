using System.Text.Json.Nodes;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;
using Encryption.Custom.Performance.Tests.Documents;
using Encryption.Custom.Performance.Tests.Infrastructure;

namespace Encryption.Custom.Performance.Tests.Allocation;

/// <summary>
/// The allocation report's core: for every shape, size, processor and API, the steady-state bytes one encrypt and one
/// decrypt allocate (performance.md, "How we measure"), and whether the stream processor meets its targets.
/// </summary>
public static class StreamAllocationReport
{
    /// <summary>The most a Stream-API operation of the stream processor may allocate (performance.md).</summary>
    public const int StreamApiBudgetBytes = 256;

    private static readonly JsonProcessor[] s_processors = [JsonProcessor.Newtonsoft, JsonProcessor.Stream];
    private static readonly ProcessorApi[] s_apis = [ProcessorApi.BufferWriter, ProcessorApi.Stream];

    /// <summary>Measures every row; Newtonsoft rows come first in each case (they are the baseline).</summary>
    /// <param name="settings">Sizes, shapes and counting effort.</param>
    /// <param name="progress">Called with each finished row (for console output).</param>
    /// <exception cref="InvalidOperationException">A Stream-API operation did not complete synchronously.</exception>
    public static IReadOnlyList<AllocationRow> Measure(AllocationReportSettings settings, Action<AllocationRow>? progress = null)
    {
        ArgumentNullException.ThrowIfNull(settings);
        using DataEncryptionKey key = DataEncryptionKey.Generate(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized);
        var encryptor = new BenchmarkEncryptor(BenchmarkDocument.KeyId, key);
        var rows = new List<AllocationRow>();
        foreach (DocumentShape shape in settings.Shapes)
        {
            foreach (int size in settings.Sizes)
            {
                BenchmarkDocument document = BenchmarkDocuments.Create(shape, size);
                int operations = settings.OperationsPerRound(size);
                foreach (JsonProcessor processor in s_processors)
                {
                    foreach (ProcessorApi api in s_apis)
                    {
                        var harness = new ProcessorHarness(document.CreateProcessor(processor), encryptor, document, api);
                        foreach (AllocationRow row in MeasureCase(harness, processor, document, operations, settings.Rounds))
                        {
                            rows.Add(row);
                            progress?.Invoke(row);
                        }
                    }
                }
            }
        }

        return rows;
    }

    /// <summary>Every way <paramref name="rows"/> miss the stream processor's targets or failed a round trip; empty when all pass.</summary>
    public static IReadOnlyList<string> FindMisses(IEnumerable<AllocationRow> rows)
    {
        ArgumentNullException.ThrowIfNull(rows);
        var misses = new List<string>();
        foreach (AllocationRow row in rows)
        {
            string name = $"{row.Processor} {row.Api} {row.Operation} {row.Shape} {BenchmarkDocuments.Label(row.Size)}";
            if (!row.RoundTrips)
            {
                misses.Add($"{name}: decrypting did not give back the original document");
            }

            if (row.Processor != JsonProcessor.Stream)
            {
                continue;
            }

            long budget = row.Api == ProcessorApi.BufferWriter ? 0 : StreamApiBudgetBytes;
            if (row.AllocatedBytesPerOp > budget)
            {
                misses.Add($"{name}: {row.AllocatedBytesPerOp} B per operation, target {budget} B");
            }
        }

        return misses;
    }

    /// <summary>This row's allocation divided by the Newtonsoft row of the same case; null without one.</summary>
    public static double? RatioToBaseline(AllocationRow row, IEnumerable<AllocationRow> rows)
    {
        ArgumentNullException.ThrowIfNull(row);
        AllocationRow? baseline = rows.FirstOrDefault(other => other.Processor == JsonProcessor.Newtonsoft && other.IsSameCase(row));
        return baseline is null || baseline.AllocatedBytesPerOp == 0 ? null : row.AllocatedBytesPerOp / (double)baseline.AllocatedBytesPerOp;
    }

    private static AllocationRow[] MeasureCase(ProcessorHarness harness, JsonProcessor processor, BenchmarkDocument document, int operations, int rounds)
    {
        (long encryptBytes, int encryptGen2) = AllocationMeter.Measure(harness.EncryptOnce, operations, rounds);
        int encryptedLength = harness.EncryptedDocument.Length;
        harness.UseLastEncryption();
        (long decryptBytes, int decryptGen2) = AllocationMeter.Measure(harness.DecryptOnce, operations, rounds);
        bool roundTrips = SameJson(document.Utf8, harness.DecryptedDocument);

        return
        [
            new(processor, harness.Api, DocumentOperation.Encrypt, document.Shape, document.Size, document.Size, encryptedLength, encryptBytes, encryptGen2, roundTrips),
            new(processor, harness.Api, DocumentOperation.Decrypt, document.Shape, document.Size, encryptedLength, harness.DecryptedDocument.Length, decryptBytes, decryptGen2, roundTrips),
        ];
    }

    // Byte-equal for the stream processor; Newtonsoft re-serializes, so equal as JSON values is the check.
    private static bool SameJson(ReadOnlySpan<byte> expected, ReadOnlySpan<byte> actual) =>
        expected.SequenceEqual(actual) || JsonNode.DeepEquals(JsonNode.Parse(expected), JsonNode.Parse(actual));
}
