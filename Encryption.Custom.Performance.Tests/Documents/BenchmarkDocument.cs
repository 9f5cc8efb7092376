using Encryption.Custom.Json;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Processing;

namespace Encryption.Custom.Performance.Tests.Documents;

/// <summary>A generated plaintext document (compact UTF-8 JSON) and the top-level paths to encrypt in it.</summary>
public sealed class BenchmarkDocument
{
    /// <summary>The data encryption key id every benchmark document is encrypted with.</summary>
    public const string KeyId = "benchmark-dek";

    internal BenchmarkDocument(DocumentShape shape, int size, byte[] utf8, string[] paths, string[]? deterministicPaths = null)
    {
        Shape = shape;
        Size = size;
        Utf8 = utf8;
        Paths = paths;
        DeterministicPaths = deterministicPaths ?? [];
    }

    public DocumentShape Shape { get; }

    /// <summary>The requested size; <see cref="Utf8"/> is exactly this long.</summary>
    public int Size { get; }

    public byte[] Utf8 { get; }

    public IReadOnlyList<string> Paths { get; }

    /// <summary>The paths among <see cref="Paths"/> encrypted deterministically (empty for most shapes).</summary>
    public IReadOnlyList<string> DeterministicPaths { get; }

    /// <summary>
    /// New options for <see cref="KeyId"/> and <see cref="Paths"/> (compiled on first use, then reused), with
    /// <see cref="DeterministicPaths"/> set as a container policy sets them.
    /// </summary>
    public EncryptionOptions CreateOptions() => Rules?.CreateWriteOptions() ?? new()
    {
        DataEncryptionKeyId = KeyId,
        PathsToEncrypt = Paths,
        DeterministicPaths = DeterministicPaths.Count == 0 ? null : DeterministicPaths,
    };

    /// <summary>
    /// The compiled container policy a processor needs for this shape (bound and committed shapes: the container it
    /// binds to), or null when options alone describe it.
    /// </summary>
    internal PolicyRuleSet? Rules { get; init; }

    /// <summary>A processor for this document: with its container policy where the shape has one (<see cref="Rules"/>).</summary>
    public EncryptionProcessor CreateProcessor(JsonProcessor processor) => EncryptionProcessor.Create(processor, rules: Rules);

    public override string ToString() => $"{Shape} {Size} B";
}
