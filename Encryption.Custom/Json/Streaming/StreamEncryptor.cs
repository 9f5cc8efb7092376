using System.Buffers;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using System.Text.Json;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// Encrypts one document in a single pass: the reader walks the top level, every byte outside the encrypted
/// values is copied verbatim, each encrypted value is written as <c>"base64(marker ‖ cell)"</c> straight into the
/// output, and <c>_ei</c> goes in front of the root's closing brace.
/// </summary>
/// <remarks>
/// The root's closing brace is written only after everything succeeded: on failure the output holds an
/// incomplete prefix that must be discarded.
/// </remarks>
internal static class StreamEncryptor
{
    public static void Encrypt(ReadOnlySpan<byte> document, IBufferWriter<byte> output, DataEncryptionKey key, EncryptionPlan plan, int maxDepth)
    {
        if (plan.PathCount == 0)
        {
            // Nothing to encrypt: the document is returned as it is (as Microsoft's package does).
            output.Write(document);
            return;
        }

        byte[]? rentedFlags = null;
        Span<byte> encrypted = plan.PathCount <= ScratchBuffer.StackLimit
            ? stackalloc byte[ScratchBuffer.StackLimit]
            : (rentedFlags = ArrayPool<byte>.Shared.Rent(plan.PathCount));
        encrypted = encrypted[..plan.PathCount];
        encrypted.Clear();
        try
        {
            var reader = new Utf8JsonReader(document, JsonDepth.ReaderOptions(maxDepth, 0));
            EncryptDocument(ref reader, document, output, key, plan, encrypted, maxDepth);
        }
        catch (JsonException exception)
        {
            JsonErrors.ThrowMalformed(exception);
        }
        finally
        {
            if (rentedFlags is not null)
            {
                ArrayPool<byte>.Shared.Return(rentedFlags);
            }
        }
    }

    private static void EncryptDocument(
        ref Utf8JsonReader reader,
        ReadOnlySpan<byte> document,
        IBufferWriter<byte> output,
        DataEncryptionKey key,
        EncryptionPlan plan,
        scoped Span<byte> encrypted,
        int maxDepth)
    {
        if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
        {
            JsonErrors.ThrowRootNotObject();
        }

        int cursor = 0;
        int lastValueEnd = (int)reader.BytesConsumed;
        bool hasProperties = false;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            hasProperties = true;
            int pathIndex = FindPath(ref reader, plan);
            if (pathIndex < 0 && IsEnvelopeName(ref reader))
            {
                JsonErrors.ThrowAlreadyEncrypted();
            }

            reader.Read();
            if (pathIndex < 0 || reader.TokenType == JsonTokenType.Null)
            {
                JsonDepth.SkipValue(ref reader, maxDepth, 0);
                lastValueEnd = (int)reader.BytesConsumed;
                continue;
            }

            if (encrypted[pathIndex] != 0)
            {
                JsonErrors.ThrowDuplicateProperty(plan.GetPath(pathIndex));
            }

            encrypted[pathIndex] = 1;
            output.Write(document[cursor..(int)reader.TokenStartIndex]);
            EncryptValue(ref reader, document, output, key, plan, pathIndex, maxDepth);
            cursor = lastValueEnd = (int)reader.BytesConsumed;
        }

        // The root is closed; anything after it other than whitespace makes the next read throw.
        reader.Read();

        output.Write(document[cursor..lastValueEnd]);
        if (hasProperties)
        {
            output.Write(","u8);
        }

        plan.WriteEnvelope(output, encrypted);
        output.Write(document[lastValueEnd..]);
    }

    // An exact match, or -1 after making sure no path matches only when case is ignored.
    private static int FindPath(ref Utf8JsonReader reader, EncryptionPlan plan)
    {
        if (!reader.ValueIsEscaped)
        {
            int index = plan.FindPath(reader.ValueSpan);
            if (index < 0)
            {
                plan.ThrowIfCaseVariant(reader.ValueSpan);
            }

            return index;
        }

        return FindEscapedPath(ref reader, plan);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int FindEscapedPath(ref Utf8JsonReader reader, EncryptionPlan plan)
    {
        // An unescaped name is never longer than its escaped form.
        var scratch = default(ScratchBuffer);
        try
        {
            Span<byte> name = reader.ValueSpan.Length <= ScratchBuffer.StackLimit
                ? stackalloc byte[ScratchBuffer.StackLimit]
                : scratch.Rent(reader.ValueSpan.Length);
            int length = JsonStringUnescaper.CopyString(ref reader, name);
            int index = plan.FindPath(name[..length]);
            if (index < 0)
            {
                plan.ThrowIfCaseVariant(name[..length]);
            }

            return index;
        }
        finally
        {
            scratch.Dispose();
        }
    }

    private static bool IsEnvelopeName(ref Utf8JsonReader reader) =>
        reader.ValueIsEscaped
            ? reader.ValueTextEquals(EncryptionEnvelope.PropertyNameUtf8)
            : reader.ValueSpan.SequenceEqual(EncryptionEnvelope.PropertyNameUtf8);

    private static void EncryptValue(
        ref Utf8JsonReader reader,
        ReadOnlySpan<byte> document,
        IBufferWriter<byte> output,
        DataEncryptionKey key,
        EncryptionPlan plan,
        int pathIndex,
        int maxDepth)
    {
        switch (reader.TokenType)
        {
            case JsonTokenType.String:
                if (!reader.ValueIsEscaped)
                {
                    WriteEncrypted(output, key, TypeMarker.String, reader.ValueSpan);
                }
                else
                {
                    EncryptEscapedString(ref reader, output, key);
                }

                break;

            case JsonTokenType.Number:
                EncryptNumber(ref reader, output, key, plan, pathIndex);
                break;

            case JsonTokenType.True:
            case JsonTokenType.False:
                Span<byte> boolean = stackalloc byte[ScalarEncoding.Length];
                ScalarEncoding.WriteBoolean(reader.TokenType == JsonTokenType.True, boolean);
                WriteEncrypted(output, key, TypeMarker.Boolean, boolean);
                break;

            case JsonTokenType.StartObject:
            case JsonTokenType.StartArray:
                TypeMarker marker = reader.TokenType == JsonTokenType.StartObject ? TypeMarker.Object : TypeMarker.Array;
                int start = (int)reader.TokenStartIndex;
                JsonDepth.SkipContainer(ref reader, maxDepth, 0);
                EncryptContainer(document[start..(int)reader.BytesConsumed], output, key, marker);
                break;

            default:
                JsonErrors.ThrowUnsupportedValue(plan.GetPath(pathIndex));
                break;
        }
    }

    private static void EncryptNumber(ref Utf8JsonReader reader, IBufferWriter<byte> output, DataEncryptionKey key, EncryptionPlan plan, int pathIndex)
    {
        Span<byte> scalar = stackalloc byte[ScalarEncoding.Length];
        if (reader.TryGetInt64(out long integer))
        {
            ScalarEncoding.WriteInt64(integer, scalar);
            WriteEncrypted(output, key, TypeMarker.Long, scalar);
            return;
        }

        // A plain integer literal that does not fit int64 is rejected, never silently stored as a double.
        ReadOnlySpan<byte> text = reader.ValueSpan;
        bool isIntegerLiteral = text.IndexOfAny((byte)'.', (byte)'e', (byte)'E') < 0;

        // The BCL parser rounds correctly; Utf8JsonReader.TryGetDouble is off by one ulp for some literals
        // (for example 298969000000000000000.0), which would disagree with Newtonsoft.Json.
        double value = 0;
        if (isIntegerLiteral
            || !double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out value)
            || !double.IsFinite(value))
        {
            JsonErrors.ThrowNumberNotRepresentable(plan.GetPath(pathIndex));
        }

        ScalarEncoding.WriteDouble(value, scalar);
        WriteEncrypted(output, key, TypeMarker.Double, scalar);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void EncryptEscapedString(ref Utf8JsonReader reader, IBufferWriter<byte> output, DataEncryptionKey key)
    {
        var scratch = default(ScratchBuffer);
        int maxLength = reader.ValueSpan.Length;
        Span<byte> plainText = maxLength <= ScratchBuffer.StackLimit ? stackalloc byte[ScratchBuffer.StackLimit] : scratch.Rent(maxLength);
        int length = 0;
        try
        {
            length = JsonStringUnescaper.CopyString(ref reader, plainText);
            WriteEncrypted(output, key, TypeMarker.String, plainText[..length]);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(plainText[..length]);
            scratch.Dispose();
        }
    }

    private static void EncryptContainer(ReadOnlySpan<byte> json, IBufferWriter<byte> output, DataEncryptionKey key, TypeMarker marker)
    {
        if (!JsonWhitespace.ContainsWhitespace(json))
        {
            // Already compact (the usual serializer output): encrypt the document's bytes directly.
            WriteEncrypted(output, key, marker, json);
            return;
        }

        EncryptCompacted(json, output, key, marker);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void EncryptCompacted(ReadOnlySpan<byte> json, IBufferWriter<byte> output, DataEncryptionKey key, TypeMarker marker)
    {
        var scratch = default(ScratchBuffer);
        Span<byte> compact = json.Length <= ScratchBuffer.StackLimit ? stackalloc byte[ScratchBuffer.StackLimit] : scratch.Rent(json.Length);
        int length = 0;
        try
        {
            length = JsonWhitespace.Compact(json, compact);
            WriteEncrypted(output, key, marker, compact[..length]);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(compact[..length]);
            scratch.Dispose();
        }
    }

    private static void WriteEncrypted(IBufferWriter<byte> output, DataEncryptionKey key, TypeMarker marker, ReadOnlySpan<byte> plainText)
    {
        int encodedLength = EncryptedValueCodec.GetEncodedLength(key, plainText.Length);
        Span<byte> span = output.GetSpan(encodedLength + 2);
        span[0] = (byte)'"';
        int written = EncryptedValueCodec.Encode(key, marker, plainText, span.Slice(1, encodedLength));
        span[written + 1] = (byte)'"';
        output.Advance(written + 2);
    }
}
