using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Tool.Inspection;

/// <summary>
/// Reads a document's metadata with the library's own envelope reader (the stream processor's first two decryption
/// steps, <c>EnvelopeReader.ReadMetadata</c>, through <c>InternalsVisibleTo</c>), so that <c>inspect</c> applies exactly the rules
/// <c>decrypt</c> does and the tool holds no copy of the wire format.
/// </summary>
internal static class DocumentInspector
{
    /// <summary>Reads the metadata of <paramref name="document"/>.</summary>
    /// <returns>The metadata, or <see langword="null"/> when the document is not encrypted (no <c>_ei</c>, or <c>_ei: null</c>).</returns>
    /// <exception cref="EncryptionException">
    /// Malformed JSON or metadata, a root that is not an object, an unsupported format or algorithm, a listed value
    /// that is not a string, or a document over the default limits.
    /// </exception>
    public static DocumentMetadata? Inspect(ReadOnlySpan<byte> document)
    {
        if (document.Length > EncryptionProcessorOptions.DefaultMaxDocumentLength)
        {
            JsonErrors.ThrowDocumentTooLarge(EncryptionProcessorOptions.DefaultMaxDocumentLength);
        }

        EnvelopeMetadata? metadata = EnvelopeReader.ReadMetadata(document, EncryptionProcessorOptions.DefaultMaxDepth);
        return metadata is null
            ? null
            : new DocumentMetadata((int)metadata.FormatVersion, metadata.Algorithm, metadata.DataEncryptionKeyId, metadata.Paths);
    }
}
