using System.Buffers;
using Encryption.Custom.Migration;
using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.Deks;
using Encryption.Custom.Tool.Documents;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tool.Commands;

/// <summary><c>list-deks</c>: every DEK document of the DEK container, one line of JSON each, ordered by id; no key is used.</summary>
internal static class ListDeksCommand
{
    /// <exception cref="Errors.ToolException">The database or container does not exist (exit code 1).</exception>
    /// <exception cref="EncryptionException">A document is not a DEK document (exit code 3).</exception>
    /// <exception cref="CosmosException">The service refused the query.</exception>
    public static async Task RunAsync(ToolArguments arguments, ToolConsole console, CancellationToken cancellationToken)
    {
        // Listing unwraps nothing: an empty local provider stands in for the key-encryption key.
        await using DekContainerSession session = await DekContainerSession.OpenAsync(
            arguments.Deks!, _ => Task.FromResult<EncryptionKeyWrapProvider>(new LocalKeyWrapProvider()), cancellationToken).ConfigureAwait(false);

        var deks = new List<DataEncryptionKeyProperties>();
        using (FeedIterator<DataEncryptionKeyProperties> iterator = session.Keys.GetDataEncryptionKeyQueryIterator())
        {
            while (iterator.HasMoreResults)
            {
                FeedResponse<DataEncryptionKeyProperties> page = await TransientFailures.RetryAsync(iterator.ReadNextAsync, TimeProvider.System, cancellationToken).ConfigureAwait(false);
                deks.AddRange(page);
            }
        }

        // A DEK container holds few documents: sorted here, so the order does not depend on the service's.
        var text = new ArrayBufferWriter<byte>(256 * (deks.Count + 1));
        foreach (DataEncryptionKeyProperties dek in deks.OrderBy(d => d.Id, StringComparer.Ordinal))
        {
            DekLine.Write(dek, text);
        }

        await DocumentOutput.WriteAsync(null, console.Out, text.WrittenMemory, cancellationToken).ConfigureAwait(false);
    }
}
