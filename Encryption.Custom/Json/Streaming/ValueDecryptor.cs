using System.Buffers;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using System.Text.Json;
using System.Text.Unicode;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// Decrypts one encrypted property value and writes it back as the JSON value it was: strings escaped minimally,
/// numbers formatted, booleans as literals, objects and arrays as their (validated) decrypted text.
/// </summary>
/// <remarks>The plaintext lives only in a stack or pooled buffer that is zeroed before this returns.</remarks>
internal static class ValueDecryptor
{
    /// <summary>Decrypts the string value of <paramref name="property"/> and writes the JSON value.</summary>
    /// <exception cref="EncryptionException">The value is not valid or not authentic; names the path and DEK id.</exception>
    public static void Write(
        ReadOnlySpan<byte> input,
        DecryptionScan scan,
        in PropertyRecord property,
        DataEncryptionKey key,
        string keyId,
        IBufferWriter<byte> output,
        int maxDepth)
    {
        ReadOnlySpan<byte> token = input[property.ValueStart..property.ValueEnd];
        if (property.ValueEscaped)
        {
            WriteEscapedBase64(token, scan.GetName(input, property), key, keyId, output, maxDepth);
            return;
        }

        Write(token[1..^1], scan.GetName(input, property), key, keyId, output, maxDepth);
    }

    /// <summary>Decrypts base64(marker ‖ cell) and writes the JSON value.</summary>
    /// <param name="base64">The unescaped string content.</param>
    /// <param name="name">The property name, for errors.</param>
    /// <param name="key">The key.</param>
    /// <param name="keyId">The key id, for errors.</param>
    /// <param name="output">Where the JSON value goes.</param>
    /// <param name="maxDepth">The document depth limit (the value sits at level 2).</param>
    public static void Write(
        ReadOnlySpan<byte> base64,
        ReadOnlySpan<byte> name,
        DataEncryptionKey key,
        string keyId,
        IBufferWriter<byte> output,
        int maxDepth)
    {
        int blobLength = EncryptedValueCodec.GetMaxBlobLength(base64.Length);
        int plainLength = key.GetDecryptByteCount(Math.Max(blobLength - 1, 0));
        var scratch = default(ScratchBuffer);
        scoped Span<byte> blob;
        scoped Span<byte> plainText;
        if (blobLength <= ScratchBuffer.StackLimit && plainLength <= ScratchBuffer.StackLimit)
        {
            blob = stackalloc byte[ScratchBuffer.StackLimit];
            plainText = stackalloc byte[ScratchBuffer.StackLimit];
        }
        else
        {
            Span<byte> rented = scratch.Rent(blobLength + plainLength);
            blob = rented[..blobLength];
            plainText = rented[blobLength..];
        }

        int written = 0;
        try
        {
            EncryptedValueStatus status = EncryptedValueCodec.TryDecrypt(key, base64, blob, plainText, out TypeMarker marker, out written);
            if (status != EncryptedValueStatus.Valid)
            {
                JsonErrors.ThrowInvalidValue(status, name, keyId);
            }

            WriteValue(marker, plainText[..written], name, keyId, output, maxDepth);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(plainText[..written]);
            scratch.Dispose();
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void WriteEscapedBase64(ReadOnlySpan<byte> token, ReadOnlySpan<byte> name, DataEncryptionKey key, string keyId, IBufferWriter<byte> output, int maxDepth)
    {
        // Some writers escape '+' and '/' (System.Text.Json's default encoder writes "\u002B").
        byte[] rented = ArrayPool<byte>.Shared.Rent(token.Length);
        try
        {
            int length = JsonStringUnescaper.Unescape(token, rented);
            Write(rented.AsSpan(0, length), name, key, keyId, output, maxDepth);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(rented);
        }
    }

    private static void WriteValue(TypeMarker marker, ReadOnlySpan<byte> plainText, ReadOnlySpan<byte> name, string keyId, IBufferWriter<byte> output, int maxDepth)
    {
        switch (marker)
        {
            case TypeMarker.String:
                if (!Utf8.IsValid(plainText))
                {
                    JsonErrors.ThrowInvalidPlainText(name, keyId, "UTF-8 text");
                }

                JsonStringEscaper.WriteQuoted(output, plainText);
                break;

            case TypeMarker.Long:
                JsonNumberFormatter.WriteInt64(output, ScalarEncoding.ReadInt64(plainText));
                break;

            case TypeMarker.Double:
                double value = ScalarEncoding.ReadDouble(plainText);
                if (!double.IsFinite(value))
                {
                    JsonErrors.ThrowInvalidPlainText(name, keyId, "a finite number");
                }

                JsonNumberFormatter.WriteDouble(output, value);
                break;

            case TypeMarker.Boolean:
                output.Write(ScalarEncoding.ReadBoolean(plainText) ? "true"u8 : "false"u8);
                break;

            default:
                bool isObject = marker == TypeMarker.Object;
                if (!IsSingleContainer(plainText, isObject, maxDepth, levelOffset: 1))
                {
                    JsonErrors.ThrowInvalidPlainText(name, keyId, isObject ? "a JSON object" : "a JSON array");
                }

                output.Write(plainText);
                break;
        }
    }

    /// <summary>Whether <paramref name="json"/> is exactly one object (or array) within the depth limit.</summary>
    /// <exception cref="EncryptionException">It is deeper than the limit (<see cref="EncryptionErrorKind.LimitExceeded"/>).</exception>
    public static bool IsSingleContainer(ReadOnlySpan<byte> json, bool isObject, int maxDepth, int levelOffset)
    {
        try
        {
            var reader = new Utf8JsonReader(json, JsonDepth.ReaderOptions(maxDepth, levelOffset));
            if (!reader.Read() || reader.TokenType != (isObject ? JsonTokenType.StartObject : JsonTokenType.StartArray))
            {
                return false;
            }

            JsonDepth.SkipContainer(ref reader, maxDepth, levelOffset);
            return !reader.Read();
        }
        catch (JsonException)
        {
            // The reader's message may quote plaintext; the caller reports a fixed message instead.
            return false;
        }
    }
}
