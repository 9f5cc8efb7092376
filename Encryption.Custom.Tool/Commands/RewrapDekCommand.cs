using System.Buffers;
using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.Deks;
using Encryption.Custom.Tool.Documents;
using Encryption.Custom.Tool.Errors;
using Encryption.Custom.Tool.WrappedKeys;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tool.Commands;

/// <summary><c>rewrap-dek</c>: the library's <see cref="DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync"/> (ETag-checked, retried on a concurrent change).</summary>
internal static class RewrapDekCommand
{
    /// <exception cref="ToolException">The container does not exist (exit code 1), an unusable key file (3), a name clash (2).</exception>
    /// <exception cref="EncryptionException">The DEK is missing or cannot be unwrapped, or the new wrapping failed (exit code 3).</exception>
    /// <exception cref="CosmosException">The service refused the request.</exception>
    public static async Task RunAsync(ToolArguments arguments, ToolConsole console, CancellationToken cancellationToken)
    {
        DekArguments deks = arguments.Deks!;
        string id = deks.DekId!;
        EncryptionKeyWrapMetadata target = deks.WrapMetadata!;
        await using DekContainerSession session = await DekContainerSession.OpenAsync(deks, container => OpenKeysAsync(container, deks, cancellationToken), cancellationToken).ConfigureAwait(false);

        DataEncryptionKeyProperties rewrapped = await DekContainerSession.WrapAsync(
            id, () => session.Keys.RewrapDataEncryptionKeyAsync(id, target, cancellationToken: cancellationToken)).ConfigureAwait(false);

        var line = new ArrayBufferWriter<byte>(256);
        DekLine.Write(rewrapped, line);
        await DocumentOutput.WriteAsync(null, console.Out, line.WrittenMemory, cancellationToken).ConfigureAwait(false);
    }

    // Key Vault resolves both keys by their identifiers. Local files are registered under the names the library
    // will ask for: the current key under the name the DEK document records, the new one under --kek-name.
    private static async Task<EncryptionKeyWrapProvider> OpenKeysAsync(Container container, DekArguments deks, CancellationToken cancellationToken)
    {
        if (deks.KekFile is not { } kekFile)
        {
            return KeyEncryptionKeys.Open(null, []);
        }

        await using var documents = new DekDocumentEndpoint(container);
        DataEncryptionKeyProperties current = await documents.ReadAsync(deks.DekId!, cancellationToken).ConfigureAwait(false);
        string currentName = current.EncryptionKeyWrapMetadata.Name ?? current.EncryptionKeyWrapMetadata.Value;
        string newName = deks.WrapMetadata!.Name!;
        string newFile = deks.NewKekFile ?? kekFile;
        if (string.Equals(currentName, newName, StringComparison.Ordinal))
        {
            // One name can stand for one key only: the application resolves the DEK by that name, and could not tell
            // the old key from the new one.
            return deks.NewKekFile is null
                ? KeyEncryptionKeys.OpenLocal([(kekFile, currentName)])
                : throw ToolException.Usage($"--kek-name is the name the DEK is wrapped under now; a new key file (--new-kek-file) needs a name of its own (see 'cosmos-encryption rewrap-dek --help').");
        }

        return KeyEncryptionKeys.OpenLocal([(kekFile, currentName), (newFile, newName)]);
    }
}
