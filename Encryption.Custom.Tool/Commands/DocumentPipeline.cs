using System.Buffers;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Tool.Documents;

namespace Encryption.Custom.Tool.Commands;

/// <summary>
/// Input → library → output for encrypt and decrypt. The result is built in a pooled buffer that is wiped when
/// it goes back (it may hold plaintext, or a failed operation's partial output) and written only after the
/// operation succeeded, so that a failure writes nothing anywhere.
/// </summary>
internal static class DocumentPipeline
{
    /// <summary>Runs <paramref name="transform"/> from the input to a buffer, then writes the buffer out.</summary>
    /// <exception cref="Errors.ToolException">The input cannot be read (exit code 3) or the output written (exit code 1).</exception>
    /// <exception cref="EncryptionException">The library rejected the document or the key.</exception>
    public static async Task RunAsync(
        string? inputPath,
        string? outputPath,
        ToolConsole console,
        Func<Stream, IBufferWriter<byte>, CancellationToken, ValueTask> transform,
        CancellationToken cancellationToken)
    {
        PooledBufferWriter result = PooledBufferWriterPool.Rent();
        try
        {
            using (DocumentInput input = DocumentInput.Open(inputPath, console.In))
            {
                try
                {
                    await transform(input.Stream, result, cancellationToken);
                }
                catch (IOException exception)
                {
                    throw DocumentInput.Unreadable(exception);
                }
            }

            await DocumentOutput.WriteAsync(outputPath, console.Out, result.WrittenMemory, cancellationToken);
        }
        finally
        {
            PooledBufferWriterPool.Return(result);
        }
    }
}
