using Encryption.Custom.Tool.CommandLine;

namespace Encryption.Custom.Tool.WrappedKeys;

/// <summary>Where the tool reads a data encryption key's document (its wrapped key and key-wrap metadata) from.</summary>
internal abstract class DekDocumentSource : IAsyncDisposable
{
    /// <summary>The source the command line names.</summary>
    public static DekDocumentSource For(WrappedKeyArguments arguments) => arguments.DekFile is { } file
        ? new DekDocumentFile(file)
        : new DekDocumentEndpoint(arguments.Endpoint!, arguments.Database!, arguments.Container!);

    /// <summary>Reads the document of the DEK with id <paramref name="dataEncryptionKeyId"/>.</summary>
    /// <exception cref="EncryptionException">The document is missing, malformed or for another DEK (<see cref="EncryptionErrorKind.KeyUnavailable"/>).</exception>
    /// <exception cref="Errors.ToolException">The document cannot be read (exit code 3).</exception>
    public abstract Task<DataEncryptionKeyProperties> ReadAsync(string dataEncryptionKeyId, CancellationToken cancellationToken);

    public abstract ValueTask DisposeAsync();
}
