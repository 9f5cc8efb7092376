using System.Security.Cryptography;
using System.Text;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Json.JTokens;

/// <summary>Turns a Newtonsoft.Json token into an encrypted value and back, through the shared <see cref="EncryptedValueCodec"/>.</summary>
internal static class JTokenValueCodec
{
    /// <summary>Encrypts <paramref name="token"/> (the value of the plan's path at <paramref name="pathIndex"/>); returns the base64 text of marker ‖ cell.</summary>
    /// <exception cref="EncryptionException">The value cannot be represented (<see cref="EncryptionErrorKind.LimitExceeded"/>) or encrypted.</exception>
    public static string Encrypt(JToken token, DataEncryptionKey key, EncryptionPlan plan, int pathIndex)
    {
        string path = plan.GetPath(pathIndex);
        byte[] plainText;
        TypeMarker marker;
        switch (token.Type)
        {
            case JTokenType.String:
                marker = TypeMarker.String;
                plainText = GetStrictUtf8((string)token!, path);
                break;

            case JTokenType.Integer:
                if (((JValue)token).Value is not long integer)
                {
                    // BigInteger (or ulong): never silently stored as a double.
                    JsonErrors.ThrowNumberNotRepresentable(path);
                    return null;
                }

                marker = TypeMarker.Long;
                plainText = new byte[ScalarEncoding.Length];
                ScalarEncoding.WriteInt64(integer, plainText);
                break;

            case JTokenType.Float:
                if (((JValue)token).Value is not double number || !double.IsFinite(number))
                {
                    JsonErrors.ThrowNumberNotRepresentable(path);
                    return null;
                }

                marker = TypeMarker.Double;
                plainText = new byte[ScalarEncoding.Length];
                ScalarEncoding.WriteDouble(number, plainText);
                break;

            case JTokenType.Boolean:
                marker = TypeMarker.Boolean;
                plainText = new byte[ScalarEncoding.Length];
                ScalarEncoding.WriteBoolean((bool)token, plainText);
                break;

            case JTokenType.Object:
            case JTokenType.Array:
                if (plan.IsDeterministic(pathIndex))
                {
                    JsonErrors.ThrowDeterministicContainer(path, plan.DataEncryptionKeyId);
                }

                marker = token.Type == JTokenType.Object ? TypeMarker.Object : TypeMarker.Array;
                plainText = JObjectReader.ToUtf8(token);
                break;

            default:
                JsonErrors.ThrowUnsupportedValue(path);
                return null;
        }

        try
        {
            byte[] encoded = new byte[EncryptedValueCodec.GetEncodedLength(key, plainText.Length)];
            int length = EncryptedValueCodec.Encode(key, marker, plainText, encoded, plan.GetDeterministicPrefix(pathIndex));
            return Encoding.ASCII.GetString(encoded, 0, length);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(plainText);
        }
    }

    /// <summary>Decrypts the base64 text of marker ‖ cell back into a token.</summary>
    /// <exception cref="EncryptionException">Invalid value or not authentic (names the path and key id).</exception>
    public static JToken Decrypt(string base64, DataEncryptionKey key, string keyId, string path, int maxDepth)
    {
        byte[] base64Utf8 = Encoding.UTF8.GetBytes(base64);
        byte[] blob = new byte[EncryptedValueCodec.GetMaxBlobLength(base64Utf8.Length)];
        byte[] plainText = new byte[EncryptedValueCodec.GetMaxPlainTextLength(key, base64Utf8.Length)];
        int written = 0;
        try
        {
            EncryptedValueStatus status = EncryptedValueCodec.TryDecrypt(key, base64Utf8, blob, plainText, out TypeMarker marker, out written);
            if (status != EncryptedValueStatus.Valid)
            {
                throw JsonErrors.CreateInvalidValue(status, path, keyId);
            }

            return ToToken(marker, plainText.AsSpan(0, written), keyId, path, maxDepth);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(plainText.AsSpan(0, written));
        }
    }

    private static JToken ToToken(TypeMarker marker, ReadOnlySpan<byte> plainText, string keyId, string path, int maxDepth)
    {
        switch (marker)
        {
            case TypeMarker.String:
                try
                {
                    return new JValue(JObjectReader.StrictUtf8.GetString(plainText));
                }
                catch (DecoderFallbackException)
                {
                    JsonErrors.ThrowInvalidPlainText(path, keyId, "UTF-8 text");
                    return null;
                }

            case TypeMarker.Long:
                return new JValue(ScalarEncoding.ReadInt64(plainText));

            case TypeMarker.Double:
                double value = ScalarEncoding.ReadDouble(plainText);
                if (!double.IsFinite(value))
                {
                    JsonErrors.ThrowInvalidPlainText(path, keyId, "a finite number");
                }

                return new JValue(value);

            case TypeMarker.Boolean:
                return new JValue(ScalarEncoding.ReadBoolean(plainText));

            default:
                JTokenType expected = marker == TypeMarker.Object ? JTokenType.Object : JTokenType.Array;
                JToken? token = JObjectReader.TryParseValue(plainText, maxDepth, levels: 1);
                if (token is null || token.Type != expected)
                {
                    JsonErrors.ThrowInvalidPlainText(path, keyId, marker == TypeMarker.Object ? "a JSON object" : "a JSON array");
                }

                return token;
        }
    }

    private static byte[] GetStrictUtf8(string value, string path)
    {
        try
        {
            return JObjectReader.StrictUtf8.GetBytes(value);
        }
        catch (EncoderFallbackException)
        {
            throw new EncryptionException(
                EncryptionErrorKind.MalformedDocument,
                $"The string at '{path}' is not valid Unicode (it holds a lone surrogate).",
                path: path);
        }
    }
}
