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
        DataEncryptionKeyProperties? alreadyDone = null;
        await using DekContainerSession session = await DekContainerSession.OpenAsync(
            deks,
            async container =>
            {
                (EncryptionKeyWrapProvider keys, alreadyDone) = await OpenKeysAsync(container, deks, cancellationToken).ConfigureAwait(false);
                return keys;
            },
            cancellationToken).ConfigureAwait(false);

        var line = new ArrayBufferWriter<byte>(512);
        if (alreadyDone is not null)
        {
            // A rerun after a rewrap that landed but whose answer was lost (the run ended with a service error):
            // done is done, so exit 0, saying so, and the DEK as it is stored.
            line.Write("already done: the DEK is wrapped under --kek-name by the key in --new-kek-file (an earlier rewrap-dek landed); nothing was written\n"u8);
            DekLine.Write(alreadyDone, line);
            await DocumentOutput.WriteAsync(null, console.Out, line.WrittenMemory, cancellationToken).ConfigureAwait(false);
            return;
        }

        DataEncryptionKeyProperties rewrapped = await DekContainerSession.WrapAsync(
            id, () => session.Keys.RewrapDataEncryptionKeyAsync(id, target, cancellationToken: cancellationToken)).ConfigureAwait(false);

        DekLine.Write(rewrapped, line);
        await DocumentOutput.WriteAsync(null, console.Out, line.WrittenMemory, cancellationToken).ConfigureAwait(false);
    }

    // Key Vault resolves both keys by their identifiers. Local files are registered under the names the library
    // will ask for: the current key under the name the DEK document records, the new one under --kek-name. The DEK
    // when it is already wrapped as asked (a rerun), else null.
    private static async Task<(EncryptionKeyWrapProvider Keys, DataEncryptionKeyProperties? AlreadyDone)> OpenKeysAsync(Container container, DekArguments deks, CancellationToken cancellationToken)
    {
        if (deks.KekFile is not { } kekFile)
        {
            return (KeyEncryptionKeys.Open(null, []), null);
        }

        await using var documents = new DekDocumentEndpoint(container);
        DataEncryptionKeyProperties current = await documents.ReadAsync(deks.DekId!, cancellationToken).ConfigureAwait(false);
        string currentName = current.EncryptionKeyWrapMetadata.Name ?? current.EncryptionKeyWrapMetadata.Value;
        string newName = deks.WrapMetadata!.Name!;
        string newFile = deks.NewKekFile ?? kekFile;
        if (!string.Equals(currentName, newName, StringComparison.Ordinal))
        {
            return (KeyEncryptionKeys.OpenLocal([(kekFile, currentName), (newFile, newName)]), null);
        }

        if (deks.NewKekFile is null)
        {
            return (KeyEncryptionKeys.OpenLocal([(kekFile, currentName)]), null);
        }

        // The DEK is under --kek-name already. When the new key file unwraps it, this is the rewrap asked for having
        // landed before (a rerun after an answer that was lost): nothing to do when the wrap metadata are the ones
        // asked for; the same key with another wrap algorithm is an ordinary rewrap. Otherwise one name would stand
        // for two keys: the application resolves the DEK by that name and could not tell the old key from the new one.
        LocalKeyWrapProvider newKey = KeyEncryptionKeys.OpenLocal([(newFile, newName)]);
        if (!await UnwrapsAsync(newKey, current, cancellationToken).ConfigureAwait(false))
        {
            newKey.Dispose();
            throw ToolException.Usage($"--kek-name is the name the DEK is wrapped under now, by another key than --new-kek-file; a new key file needs a name of its own (see 'cosmos-encryption rewrap-dek --help').");
        }

        return (newKey, current.EncryptionKeyWrapMetadata.Equals(deks.WrapMetadata) ? current : null);
    }

    private static async Task<bool> UnwrapsAsync(LocalKeyWrapProvider keys, DataEncryptionKeyProperties dek, CancellationToken cancellationToken)
    {
        try
        {
            using EncryptionKeyUnwrapResult unwrapped = await keys.UnwrapKeyAsync(dek.WrappedDataEncryptionKey, dek.EncryptionKeyWrapMetadata, cancellationToken).ConfigureAwait(false);
            return true;
        }
        catch (Exception exception) when (exception is not OperationCanceledException)
        {
            // A key that does not unwrap it (AES key wrap's integrity check, RSA-OAEP's padding check), or of another kind.
            return false;
        }
    }
}
