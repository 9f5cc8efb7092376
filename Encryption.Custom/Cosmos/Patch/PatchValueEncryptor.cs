using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Json.Leasing;
using Encryption.Custom.Json.Values;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// Encrypts one patch value exactly as a document property would be, through the JSON layer's one owner of values
/// encrypted on their own (<see cref="StoredValue"/>): the key is leased here, the wire format stays in the JSON layer.
/// </summary>
internal static class PatchValueEncryptor
{
    /// <summary>Encrypts the UTF-8 JSON value <paramref name="valueJson"/> with the named key.</summary>
    /// <param name="valueJson">The value (not <c>null</c>), as the client's serializer wrote it.</param>
    /// <param name="crypto">The container's processor (its depth limit applies) and encryptor (supplies the key).</param>
    /// <param name="dataEncryptionKeyId">The document's DEK id (already checked against the policy by the caller).</param>
    /// <param name="algorithm">The document's algorithm.</param>
    /// <param name="path">The top-level path the value is stored at (for example <c>/ssn</c>).</param>
    /// <param name="deterministic">Whether the container's policy encrypts <paramref name="path"/> deterministically.</param>
    /// <param name="cancellationToken">Cancels the key lookup.</param>
    /// <returns>The base64 string to store.</returns>
    /// <exception cref="EncryptionException">The value cannot be encrypted (for example a number beyond int64), or the key is unavailable.</exception>
    public static async ValueTask<string> EncryptAsync(
        ReadOnlyMemory<byte> valueJson,
        PatchCrypto crypto,
        string dataEncryptionKeyId,
        string algorithm,
        string path,
        bool deterministic,
        CancellationToken cancellationToken)
    {
        using DataEncryptionKeyLease lease = await KeyResolver.LeaseAsync(crypto.Encryptor, dataEncryptionKeyId, algorithm, cancellationToken).ConfigureAwait(false);
        byte[] prefix = deterministic ? DeterministicIvContext.CreatePathPrefix(path) : [];
        return StoredValue.EncryptJson(lease.Key!, valueJson.Span, new ValueSite(path, prefix, dataEncryptionKeyId), crypto.Processor.MaxDepth);
    }

    /// <summary>Reads a patch value's JSON into a pooled buffer (the caller returns it: it holds plaintext).</summary>
    public static PooledBufferWriter ReadJson(Stream valueStream)
    {
        PooledBufferWriter buffer = PooledBufferWriterPool.Rent();
        try
        {
            while (true)
            {
                int read = valueStream.Read(buffer.GetSpan(4096));
                if (read == 0)
                {
                    return buffer;
                }

                buffer.Advance(read);
            }
        }
        catch
        {
            PooledBufferWriterPool.Return(buffer);
            throw;
        }
    }

    /// <summary>Whether <paramref name="json"/> is the literal <c>null</c> (surrounding whitespace allowed).</summary>
    public static bool IsNull(ReadOnlySpan<byte> json) => json.Trim(" \t\r\n"u8).SequenceEqual("null"u8);
}
