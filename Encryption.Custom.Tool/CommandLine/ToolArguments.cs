using Encryption.Custom.Json;
using Encryption.Custom.Processing;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>A parsed command line: what to do, and the values of the options given.</summary>
internal sealed class ToolArguments
{
    public required ToolAction Action { get; init; }

    /// <summary>The command to run or whose help to print; <see langword="null"/> for the tool's own help and version.</summary>
    public ToolCommand? Command { get; init; }

    public string? KeyFile { get; init; }

    /// <summary>The wrapped DEK and its key-encryption key (decrypt without <c>--key-file</c>).</summary>
    public WrappedKeyArguments? WrappedKey { get; init; }

    /// <summary>The container and target of migrate and status.</summary>
    public MigrationArguments? Migration { get; init; }

    /// <summary>The DEK container and keys of create-dek, list-deks and rewrap-dek.</summary>
    public DekArguments? Deks { get; init; }

    public string? DataEncryptionKeyId { get; init; }

    /// <summary>The <c>--path</c> values, in the order given.</summary>
    public IReadOnlyList<string> Paths { get; init; } = [];

    public JsonProcessor Processor { get; init; } = JsonProcessor.Stream;

    /// <summary>The <c>--in</c> file; <see langword="null"/> for standard input.</summary>
    public string? InputPath { get; init; }

    /// <summary>The <c>--out</c> file; <see langword="null"/> for standard output.</summary>
    public string? OutputPath { get; init; }
}
