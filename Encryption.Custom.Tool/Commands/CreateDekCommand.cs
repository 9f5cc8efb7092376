using System.Buffers;
using System.Net;
using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.Deks;
using Encryption.Custom.Tool.Documents;
using Encryption.Custom.Tool.Errors;
using Encryption.Custom.Tool.WrappedKeys;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tool.Commands;

/// <summary><c>create-dek</c>: the library's <see cref="DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync"/>, never over an existing DEK.</summary>
internal static class CreateDekCommand
{
    /// <exception cref="ToolException">The DEK exists (exit code 1, AlreadyExists), the container does not (1), an unusable key file (3).</exception>
    /// <exception cref="EncryptionException">Wrapping failed or did not verify, or the algorithm does not fit the key (exit code 3).</exception>
    /// <exception cref="CosmosException">The service refused the request for another reason.</exception>
    public static async Task RunAsync(ToolArguments arguments, ToolConsole console, CancellationToken cancellationToken)
    {
        DekArguments deks = arguments.Deks!;
        string id = deks.DekId!;
        EncryptionKeyWrapMetadata metadata = deks.WrapMetadata!;
        await using DekContainerSession session = await DekContainerSession.OpenAsync(
            deks, _ => Task.FromResult(KeyEncryptionKeys.Open(deks.KekFile, [metadata])), cancellationToken).ConfigureAwait(false);

        DataEncryptionKeyProperties created;
        try
        {
            // Not retried on a transient failure: a create whose answer was lost could have landed, and a second
            // attempt would then report AlreadyExists for the DEK this run made. The operator reruns, and list-deks shows it.
            created = await DekContainerSession.WrapAsync(id, () => session.Keys.CreateDataEncryptionKeyAsync(id, deks.Algorithm, metadata, cancellationToken: cancellationToken)).ConfigureAwait(false);
        }
        catch (CosmosException exception) when (exception.StatusCode == HttpStatusCode.Conflict)
        {
            throw ToolException.AlreadyExists(
                $"a DEK with the id '{id}' already exists in the DEK container '{deks.Container}'; it was left as it is (rewrap-dek changes its key-encryption key).",
                exception);
        }

        var line = new ArrayBufferWriter<byte>(256);
        DekLine.Write(created, line);
        await DocumentOutput.WriteAsync(null, console.Out, line.WrittenMemory, cancellationToken).ConfigureAwait(false);
    }
}
