using System.Buffers;
using System.Text;
using System.Text.Json;
using Encryption.Custom.Crypto.Binding;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// Encrypts one JSON value on its own (a patch value, a query parameter or literal) exactly as the stream processor
/// encrypts a document property: same type markers, number rules and compaction, through
/// <see cref="EncryptedValueCodec"/>. No wrapper document, no processor pass.
/// </summary>
internal static class ValueEncryptor
{
    /// <summary>Encrypts the UTF-8 JSON value <paramref name="valueJson"/> (not <c>null</c>) and returns the base64 to store.</summary>
    /// <param name="key">The data encryption key, leased by the caller.</param>
    /// <param name="keyId">Its id (for errors).</param>
    /// <param name="valueJson">One JSON value, as a serializer wrote it.</param>
    /// <param name="path">The path the value is stored at (for errors, and the deterministic IV context).</param>
    /// <param name="deterministic">Whether the path is encrypted deterministically.</param>
    /// <param name="maxDepth">The deepest nesting accepted.</param>
    /// <exception cref="EncryptionException">The value cannot be encrypted (not one JSON value, a number beyond int64, an object or array on a deterministic path, nesting too deep).</exception>
    public static string Encrypt(DataEncryptionKey key, string keyId, ReadOnlySpan<byte> valueJson, string path, bool deterministic, int maxDepth)
    {
        byte[] prefix = deterministic ? DeterministicIvContext.CreatePathPrefix(path) : [];
        var output = new ArrayBufferWriter<byte>(EncryptedValueCodec.GetEncodedLength(key, valueJson.Length) + 2);
        var reader = new Utf8JsonReader(valueJson, new JsonReaderOptions { MaxDepth = maxDepth + 1 });
        try
        {
            if (!reader.Read() || reader.TokenType == JsonTokenType.Null)
            {
                JsonErrors.ThrowUnsupportedValue(path);
            }

            // A value on its own is never committed: the chain is there for the signature only.
            var unused = default(CommitmentChain);
            StreamEncryptor.EncryptValue(ref reader, valueJson, output, key, new CellTarget(prefix, path, keyId), maxDepth, ref unused);
            if (reader.Read())
            {
                JsonErrors.ThrowUnsupportedValue(path);
            }
        }
        catch (JsonException)
        {
            // Never echo the reader's message: it may quote the (plaintext) value.
            JsonErrors.ThrowUnsupportedValue(path);
        }

        // The output holds only the quoted base64.
        return Encoding.UTF8.GetString(output.WrittenSpan[1..^1]);
    }
}
