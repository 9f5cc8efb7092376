// Reads the public part of an RSA key from Key Vault's key bundle:
//   {"key": {"kid": "https://{vault}/keys/{name}/{version}", "kty": "RSA" | "RSA-HSM", "n": "<base64url>", "e": "<base64url>", ...}, "attributes": {...}}
using System.Buffers.Text;
using System.Security.Cryptography;
using System.Text.Json;

namespace Encryption.Custom.AzureKeyVault;

/// <summary>An RSA public key read from Key Vault, for verifying signatures locally.</summary>
internal sealed class KeyVaultPublicKey : IDisposable
{
    private KeyVaultPublicKey(string keyId, RSA rsa)
    {
        KeyId = keyId;
        Rsa = rsa;
    }

    /// <summary>The versioned identifier Key Vault reported.</summary>
    public string KeyId { get; }

    public RSA Rsa { get; }

    /// <summary>The key size in bytes (the length of its signatures and RSA-OAEP ciphertexts).</summary>
    public int SizeInBytes => Rsa.KeySize / 8;

    public static async Task<KeyVaultPublicKey> ReadAsync(Stream content, CancellationToken cancellationToken)
    {
        using var buffer = new MemoryStream();
        await content.CopyToAsync(buffer, cancellationToken).ConfigureAwait(false);
        return Parse(buffer.GetBuffer().AsSpan(0, (int)buffer.Length));
    }

    internal static KeyVaultPublicKey Parse(ReadOnlySpan<byte> bundle)
    {
        string? keyId = null, keyType = null;
        byte[]? modulus = null, exponent = null;
        try
        {
            var reader = new Utf8JsonReader(bundle);
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                throw new FormatException("The Key Vault key bundle is not a JSON object.");
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                bool isKey = reader.ValueTextEquals("key"u8);
                reader.Read();
                if (!isKey || reader.TokenType != JsonTokenType.StartObject)
                {
                    reader.Skip();
                    continue;
                }

                while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
                {
                    string member = reader.GetString()!;
                    reader.Read();
                    switch (member)
                    {
                        case "kid" when reader.TokenType == JsonTokenType.String: keyId = reader.GetString(); break;
                        case "kty" when reader.TokenType == JsonTokenType.String: keyType = reader.GetString(); break;
                        case "n" when reader.TokenType == JsonTokenType.String: modulus = Base64Url.DecodeFromChars(reader.GetString()); break;
                        case "e" when reader.TokenType == JsonTokenType.String: exponent = Base64Url.DecodeFromChars(reader.GetString()); break;
                        default: reader.Skip(); break;
                    }
                }
            }
        }
        catch (Exception exception) when (exception is JsonException or FormatException)
        {
            throw new FormatException("The Key Vault key bundle is not well-formed.", exception);
        }

        if (keyType is not ("RSA" or "RSA-HSM") || modulus is null || exponent is null || keyId is null)
        {
            throw new FormatException($"The Key Vault key is not an RSA key (type '{keyType}').");
        }

        RSA rsa = RSA.Create();
        try
        {
            rsa.ImportParameters(new RSAParameters { Modulus = modulus, Exponent = exponent });
        }
        catch (CryptographicException exception)
        {
            rsa.Dispose();
            throw new FormatException("The Key Vault key's RSA parameters are not valid.", exception);
        }

        return new KeyVaultPublicKey(keyId, rsa);
    }

    public void Dispose() => Rsa.Dispose();
}
