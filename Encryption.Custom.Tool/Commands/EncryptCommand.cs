using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.Errors;
using Encryption.Custom.Tool.KeyFiles;

namespace Encryption.Custom.Tool.Commands;

/// <summary><c>encrypt</c>: the library's <see cref="EncryptionProcessor.EncryptAsync(Stream, System.Buffers.IBufferWriter{byte}, Keys.Encryptor, EncryptionOptions, CancellationToken)"/> over the key file's key.</summary>
internal static class EncryptCommand
{
    /// <summary>Encrypts the input document as <paramref name="arguments"/> say.</summary>
    /// <exception cref="ToolException">Bad paths or DEK id (exit code 2), an unreadable key file or input (3), an unwritable output (1).</exception>
    /// <exception cref="EncryptionException">The library rejected the document.</exception>
    public static async Task RunAsync(ToolArguments arguments, ToolConsole console, CancellationToken cancellationToken)
    {
        var options = new EncryptionOptions
        {
            DataEncryptionKeyId = arguments.DataEncryptionKeyId,
            PathsToEncrypt = arguments.Paths,
            JsonProcessor = arguments.Processor,
        };
        ValidateBeforeAnyInput(options);

        EncryptionProcessor processor = EncryptionProcessor.Create(arguments.Processor);
        using KeyFileEncryptor encryptor = KeyFileEncryptor.Open(arguments.KeyFile!);
        await DocumentPipeline.RunAsync(
            arguments.InputPath,
            arguments.OutputPath,
            console,
            (input, output, cancel) => processor.EncryptAsync(input, output, encryptor, options, cancel),
            cancellationToken);
    }

    // Path syntax and the DEK id are the command line's business (exit code 2), checked by the library's own rules.
    private static void ValidateBeforeAnyInput(EncryptionOptions options)
    {
        try
        {
            options.GetPlan();
        }
        catch (EncryptionException exception) when (exception.Kind == EncryptionErrorKind.InvalidOptions)
        {
            throw ToolException.Usage(exception.Message);
        }
    }
}
