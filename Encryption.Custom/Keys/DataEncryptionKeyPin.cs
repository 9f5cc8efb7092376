
namespace Encryption.Custom.Keys;

/// <summary>
/// Keeps a <see cref="DataEncryptionKey"/> usable for one whole operation (a document, a feed page) even if its
/// owner, such as a cache evicting it, disposes it meanwhile. Dispose exactly once.
/// </summary>
internal readonly struct DataEncryptionKeyPin : IDisposable
{
    private readonly ProtectedKeyMaterialPin _materialPin;

    internal DataEncryptionKeyPin(ProtectedKeyMaterialPin materialPin) => _materialPin = materialPin;

    public void Dispose() => _materialPin.Dispose();
}
