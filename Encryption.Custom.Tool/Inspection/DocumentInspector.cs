using Encryption.Custom.Json;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Inspection;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Processing;

namespace Encryption.Custom.Tool.Inspection;

/// <summary>
/// Reads a document's metadata with the library's own inspection (<c>Json.Inspection.DocumentInspector</c>, through
/// <c>InternalsVisibleTo</c>) of the processor the user chose, so that <c>inspect</c> applies exactly the rules
/// <c>decrypt --processor</c> does and the tool holds no copy of the wire format.
/// </summary>
internal static class DocumentInspector
{
    /// <summary>Reads the metadata of <paramref name="document"/>.</summary>
    /// <returns>The metadata, or <see langword="null"/> when the document is not encrypted (no <c>_ei</c>, or <c>_ei: null</c>).</returns>
    /// <exception cref="EncryptionException">
    /// Malformed JSON or metadata, a root that is not an object, an unsupported format, feature or algorithm, a listed
    /// value that is not a string, or a document over the default limits.
    /// </exception>
    public static DocumentMetadata? Inspect(ReadOnlySpan<byte> document, JsonProcessor processor = JsonProcessor.Stream)
    {
        if (document.Length > EncryptionProcessorOptions.DefaultMaxDocumentLength)
        {
            JsonErrors.ThrowDocumentTooLarge(EncryptionProcessorOptions.DefaultMaxDocumentLength);
        }

        DocumentInspection inspection = Json.Inspection.DocumentInspector.For(processor)
            .Inspect(document, new InspectionRequest(EncryptionProcessorOptions.DefaultMaxDepth));
        return inspection.State switch
        {
            InspectedState.Unreadable => throw inspection.Error!,
            InspectedState.Plaintext => null,
            _ => new DocumentMetadata(inspection.FormatVersion, inspection.Algorithm!, inspection.KeyId!, [.. inspection.Paths.Select(p => p.Path)], inspection.Bound),
        };
    }
}
