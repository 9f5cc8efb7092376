using System.Buffers;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using System.Text.Json;
using System.Text.Unicode;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Json.WireFormat;

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
        in DecryptionOutput target,
        int maxDepth,
        scoped in CellCheck check = default)
    {
        ReadOnlySpan<byte> token = input[property.ValueStart..property.ValueEnd];
        if (property.ValueEscaped)
        {
            // Some writers escape '+' and '/' (System.Text.Json's default encoder writes "\u002B").
            byte[] rented = UnescapeBase64(token, out int length);
            try
            {
                Write(rented.AsSpan(0, length), scan.GetName(input, property), target, maxDepth, check);
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(rented);
            }

            return;
        }

        Write(token[1..^1], scan.GetName(input, property), target, maxDepth, check);
    }

    /// <summary>Decrypts base64(marker ‖ cell) and writes the JSON value.</summary>
    /// <param name="base64">The unescaped string content.</param>
    /// <param name="name">The property name, for errors.</param>
    /// <param name="target">The key, its id (for errors), and where the JSON value goes.</param>
    /// <param name="maxDepth">The document depth limit (the value sits at level 2).</param>
    /// <param name="check">The document's binding when the value must be a bound cell for the selector "/" + <paramref name="name"/>
    /// (the default value for an unbound cell), and the query tokens a strict reader verifies.</param>
    public static void Write(
        ReadOnlySpan<byte> base64,
        ReadOnlySpan<byte> name,
        in DecryptionOutput target,
        int maxDepth,
        scoped in CellCheck check = default)
    {
        // The document id is stored in the URL-safe alphabet (IdCellText): the codec reads its standard form.
        Span<byte> idText = IdCellText.IsIdName(name) ? stackalloc byte[IdCellText.StandardScratchLength] : default;
        ReadOnlySpan<byte> text = idText.IsEmpty ? base64 : IdCellText.ToStandard(base64, idText);
        int blobLength = EncryptedValueCodec.GetMaxBlobLength(text.Length);

        // The blob holds the marker and the ciphertext only, nothing secret: pooled above the stack limit, not cleared.
        byte[]? rented = null;
        Span<byte> blob = blobLength <= ScratchBuffer.StackLimit
            ? stackalloc byte[ScratchBuffer.StackLimit]
            : (rented = ArrayPool<byte>.Shared.Rent(blobLength));
        try
        {
            EncryptedValueStatus status = EncryptedValueCodec.TryDecode(text, blob, out TypeMarker marker, out blobLength);
            if (status != EncryptedValueStatus.Valid)
            {
                JsonErrors.ThrowInvalidValue(status, name, target.KeyId);
            }

            DecryptAndWrite(marker, blob[1..blobLength], name, target, maxDepth, check);
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
    }

    // A rented buffer holding the unescaped base64 (length in length); the caller returns it.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static byte[] UnescapeBase64(ReadOnlySpan<byte> token, out int length)
    {
        byte[] rented = ArrayPool<byte>.Shared.Rent(token.Length);
        length = JsonStringUnescaper.Unescape(token, rented);
        return rented;
    }

    // The plaintext is decrypted straight into the output's free space, where a valid string, object or array ends up
    // anyway (saving a scratch buffer, a copy and a wipe per value); whatever is not committed as output is wiped.
    private static void DecryptAndWrite(TypeMarker marker, ReadOnlySpan<byte> cell, ReadOnlySpan<byte> name, in DecryptionOutput target, int maxDepth, scoped in CellCheck check)
    {
        DataEncryptionKey key = target.Key;
        string keyId = target.KeyId;
        IBufferWriter<byte> output = target.Output;
        int maxLength = key.GetDecryptByteCount(cell.Length);
        Span<byte> span = output.GetSpan(maxLength + 2);

        // A string leaves room for its opening quote.
        int offset = marker == TypeMarker.String ? 1 : 0;
        Span<byte> plainText = span.Slice(offset, maxLength);
        int length = 0;
        try
        {
            EncryptedValueStatus status = check.Binding.IsEmpty
                ? EncryptedValueCodec.TryDecryptCell(key, marker, cell, plainText, out length)
                : TryDecryptBound(key, check.Binding, name, marker, cell, plainText, out length);
            if (status != EncryptedValueStatus.Valid)
            {
                JsonErrors.ThrowInvalidValue(status, name, keyId);
            }

            if (check.TokenRule is { } tokenRule)
            {
                // Before the value is committed as output: a mismatch leaves nothing of it behind.
                QueryTokenCheck.Verify(key, tokenRule, marker, plainText[..length], check.StoredTokens, id: null);
            }

            switch (marker)
            {
                case TypeMarker.String:
                    if (!Utf8.IsValid(plainText[..length]))
                    {
                        JsonErrors.ThrowInvalidPlainText(name, keyId, "UTF-8 text");
                    }

                    if (JsonStringEscaper.NeedsEscaping(plainText[..length]))
                    {
                        WriteEscapedCopy(plainText, ref length, output);
                        break;
                    }

                    span[0] = (byte)'"';
                    span[length + 1] = (byte)'"';
                    output.Advance(length + 2);
                    length = 0;
                    break;

                case TypeMarker.Long:
                    long integer = ScalarEncoding.ReadInt64(plainText[..length]);
                    Wipe(plainText, ref length);
                    JsonNumberFormatter.WriteInt64(output, integer);
                    break;

                case TypeMarker.Double:
                    double value = ScalarEncoding.ReadDouble(plainText[..length]);
                    if (!double.IsFinite(value))
                    {
                        JsonErrors.ThrowInvalidPlainText(name, keyId, "a finite number");
                    }

                    Wipe(plainText, ref length);
                    JsonNumberFormatter.WriteDouble(output, value);
                    break;

                case TypeMarker.Boolean:
                    bool flag = ScalarEncoding.ReadBoolean(plainText[..length]);
                    Wipe(plainText, ref length);
                    output.Write(flag ? "true"u8 : "false"u8);
                    break;

                default:
                    bool isObject = marker == TypeMarker.Object;
                    if (!IsSingleContainer(plainText[..length], isObject, maxDepth, levelOffset: 1))
                    {
                        JsonErrors.ThrowInvalidPlainText(name, keyId, isObject ? "a JSON object" : "a JSON array");
                    }

                    output.Advance(length);
                    length = 0;
                    break;
            }
        }
        finally
        {
            // Nonzero only when the plaintext was not committed: a failure, before any other output was written.
            CryptographicOperations.ZeroMemory(plainText[..length]);
        }
    }

    // The selector of a bound cell is the path: "/" and the name the errors use.
    private static EncryptedValueStatus TryDecryptBound(DataEncryptionKey key, in CellBinding binding, ReadOnlySpan<byte> name, TypeMarker marker, ReadOnlySpan<byte> cell, Span<byte> plainText, out int length)
    {
        var scratch = default(ScratchBuffer);
        try
        {
            Span<byte> selector = name.Length < ScratchBuffer.StackLimit ? stackalloc byte[ScratchBuffer.StackLimit] : scratch.Rent(name.Length + 1);
            selector[0] = (byte)'/';
            name.CopyTo(selector[1..]);
            return BoundValueCodec.TryDecryptCell(key, binding, selector[..(name.Length + 1)], marker, cell, plainText, out length);
        }
        finally
        {
            scratch.Dispose();
        }
    }

    // Escaping lengthens the text, and the writer hands out the memory the plaintext sits in: escape from a copy.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void WriteEscapedCopy(Span<byte> plainText, ref int length, IBufferWriter<byte> output)
    {
        int copied = length;
        var scratch = default(ScratchBuffer);
        Span<byte> copy = copied <= ScratchBuffer.StackLimit ? stackalloc byte[ScratchBuffer.StackLimit] : scratch.Rent(copied);
        try
        {
            plainText[..copied].CopyTo(copy);
            Wipe(plainText, ref length);
            JsonStringEscaper.WriteQuoted(output, copy[..copied]);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(copy[..copied]);
            scratch.Dispose();
        }
    }

    private static void Wipe(Span<byte> plainText, ref int length)
    {
        CryptographicOperations.ZeroMemory(plainText[..length]);
        length = 0;
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
