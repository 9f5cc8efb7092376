using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.KeyFiles;
using Encryption.Custom.Tool.WrappedKeys;

namespace Encryption.Custom.Tool.Commands;

/// <summary>
/// <c>decrypt</c>: the library's <see cref="EncryptionProcessor.DecryptAsync(Stream, System.Buffers.IBufferWriter{byte}, Keys.Encryptor, bool, CancellationToken)"/>
/// over the key file's key, or over the DEK the document names, unwrapped from its DEK document.
/// </summary>
internal static class DecryptCommand
{
    /// <summary>Decrypts the input document.</summary>
    /// <exception cref="Errors.ToolException">An unreadable key file or input (exit code 3), an unwritable output (1).</exception>
    /// <exception cref="EncryptionException">The library rejected the document or the key.</exception>
    public static async Task RunAsync(ToolArguments arguments, ToolConsole console, CancellationToken cancellationToken)
    {
        if (arguments.WrappedKey is { } wrappedKey)
        {
            await using var unwrapping = new WrappedKeyEncryptor(wrappedKey);
            await RunAsync(arguments, unwrapping, console, cancellationToken);
            return;
        }

        using KeyFileEncryptor encryptor = KeyFileEncryptor.Open(arguments.KeyFile!);
        await RunAsync(arguments, encryptor, console, cancellationToken);
    }

    private static async Task RunAsync(ToolArguments arguments, Encryptor encryptor, ToolConsole console, CancellationToken cancellationToken)
    {
        EncryptionProcessor processor = EncryptionProcessor.Create(arguments.Processor);
        await DocumentPipeline.RunAsync(
            arguments.InputPath,
            arguments.OutputPath,
            console,
            async (input, output, cancel) => await processor.DecryptAsync(input, output, encryptor, includeDecryptionContext: false, cancel),
            cancellationToken);
    }
}
