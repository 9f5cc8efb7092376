using System.Buffers;
using System.Text.Encodings.Web;
using System.Text.Json;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.Documents;
using Encryption.Custom.Tool.Inspection;

namespace Encryption.Custom.Tool.Commands;

/// <summary><c>inspect</c>: prints a document's metadata as one line of JSON, without any key.</summary>
internal static class InspectCommand
{
    // Readable output for people and jq: non-ASCII DEK ids and paths stay as they are (still valid JSON).
    private static readonly JsonWriterOptions s_writerOptions = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    /// <summary>Inspects the input document.</summary>
    /// <exception cref="Errors.ToolException">An unreadable input (exit code 3), an unwritable output (1).</exception>
    /// <exception cref="EncryptionException">The document or its metadata is malformed or unsupported.</exception>
    public static async Task RunAsync(ToolArguments arguments, ToolConsole console, CancellationToken cancellationToken)
    {
        DocumentMetadata? metadata;
        using (DocumentInput input = DocumentInput.Open(arguments.InputPath, console.In))
        {
            InputBuffer document;
            try
            {
                document = await InputBuffer.ReadAsync(input.Stream, EncryptionProcessorOptions.DefaultMaxDocumentLength, cancellationToken);
            }
            catch (IOException exception)
            {
                throw DocumentInput.Unreadable(exception);
            }

            // The buffer goes back wiped: an unencrypted document is plaintext.
            using (document)
            {
                metadata = DocumentInspector.Inspect(document.Memory.Span, arguments.Processor);
            }
        }

        var text = new ArrayBufferWriter<byte>(256);
        Write(metadata, text);
        text.Write("\n"u8);
        await DocumentOutput.WriteAsync(null, console.Out, text.WrittenMemory, cancellationToken);
    }

    /// <summary>Writes <c>{"format":…,"algorithm":…,"dekId":…,"paths":[…]}</c> (format 101: <c>"bound"</c> after <c>dekId</c>), or <c>{"encrypted":false}</c>.</summary>
    internal static void Write(DocumentMetadata? metadata, IBufferWriter<byte> output)
    {
        using var writer = new Utf8JsonWriter(output, s_writerOptions);
        writer.WriteStartObject();
        if (metadata is null)
        {
            writer.WriteBoolean("encrypted", false);
        }
        else
        {
            writer.WriteNumber("format", metadata.FormatVersion);
            writer.WriteString("algorithm", metadata.Algorithm);
            writer.WriteString("dekId", metadata.DataEncryptionKeyId);
            if (metadata.FormatVersion == 101)
            {
                writer.WriteBoolean("bound", metadata.Bound);
            }

            writer.WriteStartArray("paths");
            foreach (string path in metadata.Paths)
            {
                writer.WriteStringValue(path);
            }

            writer.WriteEndArray();
        }

        writer.WriteEndObject();
    }
}
