// Reads Key Vault's key operation result {"kid":"<key identifier>","value":"<base64url>"} from the response
// stream into a pinned buffer (the unwrapkey value is the raw key), decodes "value" into a new pinned array,
// and zeroes the response buffer before returning.
using System.Buffers;
using System.Buffers.Text;
using System.Security.Cryptography;
using System.Text.Json;

namespace Encryption.Custom.AzureKeyVault;

/// <summary>The parsed result of a key operation: the key identifier that answered and the decoded value.</summary>
internal readonly struct KeyVaultKeyOperationResult(string? keyId, byte[] value)
{
    /// <summary>More than any key operation result; a longer body is not Key Vault's.</summary>
    internal const int MaxBodyLength = 64 * 1024;

    public string? KeyId { get; } = keyId;

    /// <summary>The decoded value, in a pinned array the caller owns (and zeroes, when it is a raw key).</summary>
    public byte[] Value { get; } = value;

    public static async Task<KeyVaultKeyOperationResult> ReadAsync(Stream content, CancellationToken cancellationToken)
    {
        byte[] buffer = GC.AllocateUninitializedArray<byte>(4096, pinned: true);
        int length = 0;
        try
        {
            while (true)
            {
                if (length == buffer.Length)
                {
                    if (buffer.Length >= MaxBodyLength)
                    {
                        throw new FormatException("The Key Vault response body is too long to be a key operation result.");
                    }

                    byte[] larger = GC.AllocateUninitializedArray<byte>(buffer.Length * 2, pinned: true);
                    buffer.AsSpan(0, length).CopyTo(larger);
                    CryptographicOperations.ZeroMemory(buffer);
                    buffer = larger;
                }

                int read = await content.ReadAsync(buffer.AsMemory(length), cancellationToken).ConfigureAwait(false);
                if (read == 0)
                {
                    break;
                }

                length += read;
            }

            return Parse(buffer.AsSpan(0, length));
        }
        finally
        {
            CryptographicOperations.ZeroMemory(buffer);
        }
    }

    internal static KeyVaultKeyOperationResult Parse(ReadOnlySpan<byte> body)
    {
        string? keyId = null;
        byte[]? value = null;
        try
        {
            var reader = new Utf8JsonReader(body);
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                throw new FormatException("The Key Vault response is not a JSON object.");
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                bool isValue = reader.ValueTextEquals("value"u8);
                bool isKeyId = reader.ValueTextEquals("kid"u8);
                reader.Read();
                // A repeated "value" or "kid" is not Key Vault's answer; refusing it also means a decoded key is never overwritten unwiped.
                if ((isValue && value is not null) || (isKeyId && keyId is not null))
                {
                    throw new FormatException("The Key Vault response repeats a member.");
                }

                if (isValue && reader.TokenType == JsonTokenType.String)
                {
                    value = DecodeValue(ref reader);
                }
                else if (isKeyId && reader.TokenType == JsonTokenType.String)
                {
                    keyId = reader.GetString();
                }
                else
                {
                    reader.Skip();
                }
            }
        }
        catch (JsonException exception)
        {
            CryptographicOperations.ZeroMemory(value);
            throw new FormatException("The Key Vault response is not well-formed JSON.", exception);
        }
        catch (FormatException)
        {
            CryptographicOperations.ZeroMemory(value);
            throw;
        }

        return value is null
            ? throw new FormatException("The Key Vault response has no \"value\".")
            : new KeyVaultKeyOperationResult(keyId, value);
    }

    private static byte[] DecodeValue(ref Utf8JsonReader reader)
    {
        if (reader.ValueIsEscaped || reader.HasValueSequence)
        {
            throw new FormatException("The Key Vault response's \"value\" is not base64url.");
        }

        ReadOnlySpan<byte> encoded = reader.ValueSpan;
        byte[] decoded = GC.AllocateUninitializedArray<byte>(Base64Url.GetMaxDecodedLength(encoded.Length), pinned: true);
        if (Base64Url.DecodeFromUtf8(encoded, decoded, out _, out int written) != OperationStatus.Done)
        {
            CryptographicOperations.ZeroMemory(decoded);
            throw new FormatException("The Key Vault response's \"value\" is not base64url.");
        }

        if (written == decoded.Length)
        {
            return decoded;
        }

        byte[] exact = GC.AllocateUninitializedArray<byte>(written, pinned: true);
        decoded.AsSpan(0, written).CopyTo(exact);
        CryptographicOperations.ZeroMemory(decoded);
        return exact;
    }
}
