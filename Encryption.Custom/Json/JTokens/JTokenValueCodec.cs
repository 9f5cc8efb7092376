using System.Buffers;
using System.Security.Cryptography;
using System.Text;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Values;
using Encryption.Custom.Json.WireFormat;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Json.JTokens;

/// <summary>Turns a Newtonsoft.Json token into an encrypted value and back, through the shared <see cref="EncryptedValueCodec"/>.</summary>
internal static class JTokenValueCodec
{
    /// <summary>Encrypts <paramref name="token"/> (the value of the plan's path at <paramref name="pathIndex"/>); returns the base64 text of marker ‖ cell.</summary>
    /// <remarks>Marker and plaintext by the one mapping (<see cref="PlainValue"/>), from the values Newtonsoft.Json parsed.</remarks>
    /// <exception cref="EncryptionException">The value cannot be represented (<see cref="EncryptionErrorKind.LimitExceeded"/>) or encrypted.</exception>
    public static string Encrypt(JToken token, DataEncryptionKey key, EncryptionPlan plan, int pathIndex, CellBinding binding = default)
    {
        string path = plan.GetPath(pathIndex);
        Span<byte> scalar = stackalloc byte[ScalarEncoding.Length];
        switch (token.Type)
        {
            case JTokenType.String:
                string text = (string)token!;
                int maxLength = PlainValue.GetMaxStringLength(text);
                byte[] rented = ArrayPool<byte>.Shared.Rent(maxLength);
                try
                {
                    int length = PlainValue.String(text, rented, path);
                    return Encode(key, TypeMarker.String, rented.AsSpan(0, length), plan, pathIndex, binding);
                }
                finally
                {
                    // All of it: an encoder that fails on a lone surrogate has already written what came before it.
                    CryptographicOperations.ZeroMemory(rented.AsSpan(0, maxLength));
                    ArrayPool<byte>.Shared.Return(rented);
                }

            case JTokenType.Integer:
                if (((JValue)token).Value is not long integer)
                {
                    // BigInteger (or ulong): never silently stored as a double.
                    JsonErrors.ThrowNumberNotRepresentable(path);
                    return null;
                }

                return EncodeScalar(key, PlainValue.Integer(integer, scalar), scalar, plan, pathIndex, binding);

            case JTokenType.Float:
                if (((JValue)token).Value is not double number)
                {
                    JsonErrors.ThrowNumberNotRepresentable(path);
                    return null;
                }

                return EncodeScalar(key, PlainValue.Double(number, scalar, path), scalar, plan, pathIndex, binding);

            case JTokenType.Boolean:
                return EncodeScalar(key, PlainValue.Boolean((bool)token, scalar), scalar, plan, pathIndex, binding);

            case JTokenType.Object:
            case JTokenType.Array:
                TypeMarker marker = PlainValue.Container(token.Type == JTokenType.Object, plan.IsDeterministic(pathIndex), path, plan.DataEncryptionKeyId);

                // The pooled writer zeroes the plaintext when it is disposed.
                using (var json = new PooledBufferWriter())
                {
                    JObjectReader.WriteUtf8(token, json);
                    return Encode(key, marker, json.WrittenSpan, plan, pathIndex, binding);
                }

            default:
                JsonErrors.ThrowUnsupportedValue(path);
                return null;
        }
    }

    /// <summary>Decrypts the base64 text of marker ‖ cell back into a token.</summary>
    /// <exception cref="EncryptionException">Invalid value or not authentic (names the path and key id).</exception>
    public static JToken Decrypt(string base64, DataEncryptionKey key, string keyId, string path, int maxDepth, CellBinding binding = default)
    {
        // Rented, not allocated: base64 text, blob and plaintext are a document's worth of bytes per document.
        base64 = IdCellText.ForCodec(path, base64);
        int base64Length = Encoding.UTF8.GetByteCount(base64);
        byte[] base64Utf8 = ArrayPool<byte>.Shared.Rent(base64Length);
        byte[] blob = ArrayPool<byte>.Shared.Rent(EncryptedValueCodec.GetMaxBlobLength(base64Length));
        int maxPlainText = EncryptedValueCodec.GetMaxPlainTextLength(key, base64Length);
        byte[] plainText = ArrayPool<byte>.Shared.Rent(maxPlainText);
        try
        {
            Encoding.UTF8.GetBytes(base64, base64Utf8);
            // A bound document's cells must be bound cells for this path in this document.
            EncryptedValueStatus status = binding.IsEmpty
                ? EncryptedValueCodec.TryDecrypt(key, base64Utf8.AsSpan(0, base64Length), blob, plainText, out TypeMarker marker, out int written)
                : BoundValueCodec.TryDecrypt(key, binding, Encoding.UTF8.GetBytes(path), base64Utf8.AsSpan(0, base64Length), plainText, out marker, out written);
            if (status != EncryptedValueStatus.Valid)
            {
                throw JsonErrors.CreateInvalidValue(status, path, keyId);
            }

            return ToToken(marker, plainText.AsSpan(0, written), keyId, path, maxDepth);
        }
        finally
        {
            // All of it, not just what a successful call reports: the array goes back to a shared pool.
            CryptographicOperations.ZeroMemory(plainText.AsSpan(0, maxPlainText));
            ArrayPool<byte>.Shared.Return(plainText);
            ArrayPool<byte>.Shared.Return(blob);
            ArrayPool<byte>.Shared.Return(base64Utf8);
        }
    }

    private static string EncodeScalar(DataEncryptionKey key, TypeMarker marker, Span<byte> plainText, EncryptionPlan plan, int pathIndex, CellBinding binding)
    {
        try
        {
            return Encode(key, marker, plainText, plan, pathIndex, binding);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(plainText);
        }
    }

    // The base64 text of marker ‖ cell. Unbound cells are the ones a value on its own gets (StoredValue: deterministic
    // IV, the id's stored alphabet), so a query operand or a lookup meets the same bytes.
    private static string Encode(DataEncryptionKey key, TypeMarker marker, ReadOnlySpan<byte> plainText, EncryptionPlan plan, int pathIndex, CellBinding binding)
    {
        // Deterministic values (the id's among them) are never bound (wire-format.md "Bound cells").
        if (binding.IsEmpty || plan.IsDeterministic(pathIndex))
        {
            return StoredValue.Encrypt(key, marker, plainText, new ValueSite(plan.GetPath(pathIndex), plan.GetDeterministicPrefix(pathIndex), plan.DataEncryptionKeyId));
        }

        byte[] encoded = ArrayPool<byte>.Shared.Rent(EncryptedValueCodec.GetEncodedLength(key, plainText.Length));
        try
        {
            int length = BoundValueCodec.Encode(key, binding, plan.GetSelector(pathIndex), marker, plainText, encoded);
            return Encoding.ASCII.GetString(encoded, 0, length);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(encoded);
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
}
