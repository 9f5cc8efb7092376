using System.Text;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Tool.Inspection;

/// <summary>
/// Reads a document's metadata with the library's own scanner and envelope reader (the stream processor's first
/// two decryption steps, through <c>InternalsVisibleTo</c>), so that <c>inspect</c> applies exactly the rules
/// <c>decrypt</c> does and the tool holds no copy of the wire format. The one place the tool uses library internals.
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

        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            DocumentScanner.ScanDocument(document, scan, EncryptionProcessorOptions.DefaultMaxDepth);
            ref DocumentRecord record = ref scan.Documents[0];
            if (!EnvelopeReader.Prepare(document, scan, ref record))
            {
                return null;
            }

            var paths = new string[scan.PathCount];
            for (int i = 0; i < paths.Length; i++)
            {
                paths[i] = "/" + Encoding.UTF8.GetString(scan.GetPathName(scan.Paths[i]));
            }

            int formatVersion = record.Format == EnvelopeFormat.LegacyBlob
                ? EncryptionEnvelope.LegacyFormatVersion
                : EncryptionEnvelope.CurrentFormatVersion;
            return new DocumentMetadata(formatVersion, record.Algorithm!, record.KeyId!, paths);
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }
}
