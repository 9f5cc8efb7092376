using System.Buffers;
using System.Diagnostics;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// What every value of one document is decrypted with and written to: the leased key, its id (which the errors
/// name) and the writer the plaintext JSON goes to. Set once per document, passed by <c>in</c>.
/// </summary>
/// <param name="key">The leased key.</param>
/// <param name="keyId">The key id, for errors.</param>
/// <param name="output">Where the decrypted JSON goes.</param>
internal readonly struct DecryptionOutput(DataEncryptionKey key, string keyId, IBufferWriter<byte> output)
{
    [DebuggerBrowsable(DebuggerBrowsableState.Never)]
    public DataEncryptionKey Key { get; } = key;

    public string KeyId { get; } = keyId;

    public IBufferWriter<byte> Output { get; } = output;
}
