using Encryption.Custom.Keys;
using Encryption.Custom.Keys.Cosmos;
using Encryption.Custom.Tool.Errors;

namespace Encryption.Custom.Tool.WrappedKeys;

/// <summary>A DEK document saved to a file (for example from the Data Explorer or a backup).</summary>
internal sealed class DekDocumentFile(string path) : DekDocumentSource
{
    /// <summary>The kind of a DEK document file that cannot be read.</summary>
    public const string InvalidDekDocumentKind = "InvalidDekDocument";

    // A DEK document is a few hundred bytes; anything this large is not one.
    private const int MaxLength = 1024 * 1024;

    public override async Task<DataEncryptionKeyProperties> ReadAsync(string dataEncryptionKeyId, CancellationToken cancellationToken)
    {
        byte[] document;
        try
        {
            var info = new FileInfo(path);
            if (info.Exists && info.Length > MaxLength)
            {
                throw ToolException.BadInput(InvalidDekDocumentKind, $"The DEK document file is larger than {MaxLength / 1024} KiB: it is not a DEK document.");
            }

            document = await File.ReadAllBytesAsync(path, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            // The path is not printed: like every path the tool is given, it could be something pasted by mistake.
            throw ToolException.BadInput(InvalidDekDocumentKind, $"The DEK document file cannot be read ({exception.GetType().Name}).", exception);
        }

        // The document must be the DEK the encrypted document names: another DEK would fail later as a ciphertext
        // error and send the operator looking at the wrong thing.
        DataEncryptionKeyProperties properties = DataEncryptionKeyPropertiesSerializer.Read(document, dataEncryptionKeyId);
        return string.Equals(properties.Id, dataEncryptionKeyId, StringComparison.Ordinal)
            ? properties
            : throw KeyErrors.InvalidDocument(dataEncryptionKeyId, "its \"id\" differs from the id the document to decrypt names");
    }

    public override ValueTask DisposeAsync() => ValueTask.CompletedTask;
}
