using System.Text.Json;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// Encrypts one patch value exactly as a document property would be: the value is wrapped in a one-property
/// document and given to the processor, and the encrypted string is taken back out. The wire format stays in the
/// JSON layer; nothing here frames values. A randomized value is wrapped under <c>v</c> (a patch path may name a
/// property no policy path could, such as <c>a/b</c>); a deterministic one under its own name, because its IV binds
/// the path.
/// </summary>
internal static class PatchValueEncryptor
{
    private const string ValueName = "v";
    private static readonly string[] s_valuePath = ["/" + ValueName];

    /// <summary>Encrypts the UTF-8 JSON value <paramref name="valueJson"/> with the named key.</summary>
    /// <param name="valueJson">The value (not <c>null</c>), as the client's serializer wrote it.</param>
    /// <param name="processor">The processor to encrypt with.</param>
    /// <param name="encryptor">Supplies the key.</param>
    /// <param name="dataEncryptionKeyId">The document's DEK id.</param>
    /// <param name="algorithm">The document's algorithm.</param>
    /// <param name="path">The top-level path the value is stored at (for example <c>/ssn</c>).</param>
    /// <param name="deterministic">Whether the container's policy encrypts <paramref name="path"/> deterministically.</param>
    /// <param name="cancellationToken">Cancels the key lookup.</param>
    /// <returns>The base64 string to store.</returns>
    /// <exception cref="EncryptionException">The value cannot be encrypted (for example a number beyond int64), or the key is unavailable.</exception>
    public static async ValueTask<string> EncryptAsync(
        ReadOnlyMemory<byte> valueJson,
        EncryptionProcessor processor,
        Encryptor encryptor,
        string dataEncryptionKeyId,
        string algorithm,
        string path,
        bool deterministic,
        CancellationToken cancellationToken)
    {
        string[] paths = deterministic ? [path] : s_valuePath;
        var options = new EncryptionOptions
        {
            DataEncryptionKeyId = dataEncryptionKeyId,
            EncryptionAlgorithm = algorithm,
            PathsToEncrypt = paths,
            DeterministicPaths = deterministic ? paths : null,
        };
        string name = paths[0][1..];

        PooledBufferWriter document = PooledBufferWriterPool.Rent();
        PooledBufferWriter encrypted = PooledBufferWriterPool.Rent();
        try
        {
            using (var writer = new Utf8JsonWriter(document))
            {
                writer.WriteStartObject();
                writer.WritePropertyName(name);
                writer.WriteRawValue(valueJson.Span, skipInputValidation: true);
                writer.WriteEndObject();
            }

            using (DataEncryptionKeyLease lease = await KeyResolver.LeaseAsync(encryptor, dataEncryptionKeyId, algorithm, cancellationToken).ConfigureAwait(false))
            {
                try
                {
                    processor.EncryptLeased(document.WrittenSpan, encrypted, lease.Key, options);
                }
                catch (EncryptionException exception) when (exception.Path is not null && !deterministic)
                {
                    // Errors name the patch path, not the wrapper's property.
                    throw new EncryptionException(exception.Kind, exception.Message.Replace("'/v'", "'" + path + "'", StringComparison.Ordinal), exception.DataEncryptionKeyId, path, exception);
                }
            }

            return ReadValue(encrypted.WrittenSpan, name);
        }
        finally
        {
            // Both held plaintext (the value and, before encryption finished, a prefix of it).
            PooledBufferWriterPool.Return(document);
            PooledBufferWriterPool.Return(encrypted);
        }
    }

    private static string ReadValue(ReadOnlySpan<byte> encrypted, string name)
    {
        var reader = new Utf8JsonReader(encrypted);
        reader.Read();
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            bool isValue = reader.ValueTextEquals(name);
            reader.Read();
            if (isValue && reader.TokenType == JsonTokenType.String)
            {
                return reader.GetString()!;
            }

            reader.Skip();
        }

        throw new InvalidOperationException("The processor did not produce the encrypted value.");
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
