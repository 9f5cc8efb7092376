using System.Text.Json;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Performance.Tests.Documents;

namespace Encryption.Custom.Performance.Tests.Allocation;

/// <summary>
/// The report as JSON: an array with one object per row,
/// <c>{"processor","operation","shape","documentBytes","outputBytes","allocatedBytesPerOp","api"}</c>.
/// <c>documentBytes</c> is what the operation was handed (the plaintext document for encrypt, the encrypted document
/// for decrypt); <c>shape</c> is <c>published</c>, <c>mixed</c> or <c>lookup</c>; enum values are camelCase (<c>stream</c>/<c>newtonsoft</c>, <c>bufferWriter</c>/<c>stream</c>).
/// </summary>
public static class AllocationJson
{
    public static void Write(IEnumerable<AllocationRow> rows, Stream destination)
    {
        ArgumentNullException.ThrowIfNull(rows);
        using var writer = new Utf8JsonWriter(destination, new JsonWriterOptions { Indented = true });
        writer.WriteStartArray();
        foreach (AllocationRow row in rows)
        {
            writer.WriteStartObject();
            writer.WriteString("processor", row.Processor == JsonProcessor.Stream ? "stream" : "newtonsoft");
            writer.WriteString("operation", row.Operation == DocumentOperation.Encrypt ? "encrypt" : "decrypt");
            writer.WriteString("shape", row.Shape switch
            {
                DocumentShape.Mixed => "mixed",
                DocumentShape.Lookup => "lookup",
                DocumentShape.Nested => "nested",
                _ => "published",
            });
            writer.WriteNumber("documentBytes", row.InputBytes);
            writer.WriteNumber("outputBytes", row.OutputBytes);
            writer.WriteNumber("allocatedBytesPerOp", row.AllocatedBytesPerOp);
            writer.WriteString("api", row.Api == ProcessorApi.BufferWriter ? "bufferWriter" : "stream");
            writer.WriteEndObject();
        }

        writer.WriteEndArray();
    }
}
