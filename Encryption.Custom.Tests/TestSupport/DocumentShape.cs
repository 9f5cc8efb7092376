using Encryption.Custom.Json;
using Encryption.Custom.Processing;

namespace Encryption.Custom.Tests.TestSupport;

/// <summary>A document and the paths to encrypt in it.</summary>
public sealed record DocumentShape(string Name, string Json, string[] Paths)
{
    public byte[] Utf8 { get; } = System.Text.Encoding.UTF8.GetBytes(Json);

    public EncryptionOptions Options(string keyId = DocumentShapes.KeyId) => new()
    {
        DataEncryptionKeyId = keyId,
        PathsToEncrypt = Paths,
    };

    public override string ToString() => Name;
}
