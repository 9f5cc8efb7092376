
namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// A resolved key pinned for one document (or one document of a page): an encryptor's cache may evict and dispose
/// the key meanwhile, and the pin keeps its memory usable until <see cref="Dispose"/>.
/// </summary>
internal readonly struct PinnedKey : IDisposable
{
    private readonly DataEncryptionKeyPin _pin;

    public PinnedKey(DataEncryptionKey key, DataEncryptionKeyPin pin)
    {
        Key = key;
        _pin = pin;
    }

    public DataEncryptionKey Key { get; }

    public void Dispose() => _pin.Dispose();
}
