using Encryption.Custom.Json;
using Encryption.Custom.Processing;

namespace Encryption.Custom.Performance.Tests.Documents;

/// <summary>A generated plaintext document (compact UTF-8 JSON) and the top-level paths to encrypt in it.</summary>
public sealed class BenchmarkDocument
{
    /// <summary>The data encryption key id every benchmark document is encrypted with.</summary>
    public const string KeyId = "benchmark-dek";

    internal BenchmarkDocument(DocumentShape shape, int size, byte[] utf8, string[] paths)
    {
        Shape = shape;
        Size = size;
        Utf8 = utf8;
        Paths = paths;
    }

    public DocumentShape Shape { get; }

    /// <summary>The requested size; <see cref="Utf8"/> is exactly this long.</summary>
    public int Size { get; }

    public byte[] Utf8 { get; }

    public IReadOnlyList<string> Paths { get; }

    /// <summary>New options for <see cref="KeyId"/> and <see cref="Paths"/> (compiled on first use, then reused).</summary>
    public EncryptionOptions CreateOptions() => new()
    {
        DataEncryptionKeyId = KeyId,
        PathsToEncrypt = Paths,
    };

    public override string ToString() => $"{Shape} {Size} B";
}
