using System.Buffers;
using System.Buffers.Text;
using System.Diagnostics;
using System.Security.Cryptography;
using System.Text.Json;
using Encryption.Custom.Crypto.Chains;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Json.Values;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

// The fast path with a document's values encrypted together (issue 37): AES-CBC is serial inside a value but
// independent across values, so the key encrypts them as interleaved chains (Crypto/Chains). Three passes over the
// scanned properties: gather (every check, error and length the per-value loop makes, in the same order, and each
// value's plaintext into a pooled arena), one batch, then write (the same bytes the per-value loop writes).
internal static partial class StreamEncryptor
{
    // Per-value records live on the stack up to this many paths, in pooled arrays beyond.
    private const int StackBatchedValues = 64;

    // A cell's header (version, tag, IV) and at most one block of padding.
    private const int AeadCellLayoutMaxOverhead = Crypto.AeadCellLayout.HeaderSize + Crypto.AeadCellLayout.BlockSize;

    // Only the library's own keys on a CPU that interleaves chains, unbound cells (bound ones have their own tag
    // input; the document commitment comes only with them), no encrypted id (its text is converted per value,
    // IdCellText) and no nested selectors (their values are found by a walk inside a value). Query tokens are
    // computed in the gather, from the plaintext the cell will hold.
    private static bool CanEncryptBatched(scoped in DocumentEncryption pass)
    {
        EncryptionPlan plan = pass.Plan;
        if (!pass.Key.EncryptsBatches || !pass.Binding.IsEmpty || plan.NestedSelectors.ChildCount > 0)
        {
            return false;
        }

        for (int i = 0; i < plan.PathCount; i++)
        {
            if (IdCellText.IsIdSelector(plan.GetSelector(i)))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Encrypts a scanned document's values as one batch; writes and throws what the per-value loop does.</summary>
    private static void EncryptScannedBatched(scoped in DocumentEncryption pass, scoped Span<byte> encrypted, DecryptionScan scan)
    {
        ReadOnlySpan<byte> document = pass.Document;
        EncryptionPlan plan = pass.Plan;

        // Bounds: a plaintext is at most its JSON text, or a scalar's 8 bytes; a blob is marker ‖ cell.
        int plainTextBound = document.Length + (ScalarEncoding.Length * plan.PathCount);
        int blobBound = plainTextBound + (plan.PathCount * (1 + AeadCellLayoutMaxOverhead));
        int contextBound = 0;
        for (int i = 0; i < plan.PathCount; i++)
        {
            contextBound += plan.GetDeterministicPrefix(i).Length + 1;
        }

        byte[] plainTextArena = ArrayPool<byte>.Shared.Rent(plainTextBound);
        byte[] blobArena = ArrayPool<byte>.Shared.Rent(blobBound);
        byte[] contextArena = ArrayPool<byte>.Shared.Rent(contextBound);
        AeadBatchValue[]? rentedValues = null;
        BatchedProperty[]? rentedProperties = null;
        Span<AeadBatchValue> values = plan.PathCount <= StackBatchedValues
            ? stackalloc AeadBatchValue[StackBatchedValues]
            : (rentedValues = ArrayPool<AeadBatchValue>.Shared.Rent(plan.PathCount));
        Span<BatchedProperty> properties = plan.PathCount <= StackBatchedValues
            ? stackalloc BatchedProperty[StackBatchedValues]
            : (rentedProperties = ArrayPool<BatchedProperty>.Shared.Rent(plan.PathCount));
        var arenas = new BatchArenas(plainTextArena, blobArena, contextArena, values, properties);
        try
        {
            int count = Gather(pass, encrypted, scan, ref arenas, out int cursor, out int lastValueEnd, out long written);
            pass.Key.EncryptBatchLeased(plainTextArena.AsSpan(0, arenas.PlainTextsUsed), contextArena.AsSpan(0, arenas.ContextsUsed), blobArena.AsSpan(0, arenas.BlobsUsed), values[..count]);
            WriteBatched(pass.Document, pass.Output, blobArena, properties[..count]);
            WriteTail(pass, encrypted, scan.Documents[0].PropertyCount > 0, cursor, lastValueEnd, written, default);
        }
        finally
        {
            // Plaintext, up to where a value that failed midway could have written; the blobs and contexts are public.
            CryptographicOperations.ZeroMemory(plainTextArena.AsSpan(0, Math.Min(plainTextBound, arenas.PlainTextsReserved)));
            ArrayPool<byte>.Shared.Return(plainTextArena);
            ArrayPool<byte>.Shared.Return(blobArena);
            ArrayPool<byte>.Shared.Return(contextArena);
            if (rentedValues is not null)
            {
                ArrayPool<AeadBatchValue>.Shared.Return(rentedValues);
                ArrayPool<BatchedProperty>.Shared.Return(rentedProperties!);
            }
        }
    }

    // The per-value loop of EncryptRecords up to the point where it encrypts: the same checks in the same order,
    // each value's plaintext into the arena instead of into the key.
    private static int Gather(
        scoped in DocumentEncryption pass,
        scoped Span<byte> encrypted,
        DecryptionScan scan,
        ref BatchArenas arenas,
        out int cursor,
        out int lastValueEnd,
        out long written)
    {
        ReadOnlySpan<byte> document = pass.Document;
        EncryptionPlan plan = pass.Plan;
        ref DocumentRecord root = ref scan.Documents[0];
        written = 0;
        cursor = 0;
        int count = 0;
        lastValueEnd = root.Start + 1;
        int end = root.FirstProperty + root.PropertyCount;
        for (int i = root.FirstProperty; i < end; i++)
        {
            ref PropertyRecord property = ref scan.Properties[i];
            int pathIndex = ClassifyScanned(document, scan, plan, in property, encrypted, out _);
            if (pathIndex < 0)
            {
                lastValueEnd = property.ValueEnd;
                continue;
            }

            written += property.ValueStart - cursor;
            Span<byte> plainText = arenas.PlainTexts[arenas.PlainTextsUsed..];
            arenas.PlainTextsReserved = arenas.PlainTextsUsed + (property.ValueEnd - property.ValueStart) + ScalarEncoding.Length;
            int length = GatherPlainText(pass, in property, pathIndex, plainText, out TypeMarker marker);
            if (plan.GetQueryTokens(pathIndex) is { } tokenRule)
            {
                // As WriteEncrypted does: from the plaintext as the cell holds it, before the value counts as written.
                QueryTokens.ComputeFromPlainText(pass.Key, tokenRule, marker, plainText[..length], TokensOf(plan, pathIndex, pass.Tokens));
            }

            int cellLength = pass.Key.GetEncryptByteCount(length);
            ReadOnlySpan<byte> prefix = plan.GetDeterministicPrefix(pathIndex);
            int contextOffset = arenas.ContextsUsed;
            if (!prefix.IsEmpty)
            {
                // prefix ‖ marker, as EncryptedValueCodec binds a deterministic IV.
                prefix.CopyTo(arenas.Contexts[contextOffset..]);
                arenas.Contexts[contextOffset + prefix.Length] = (byte)marker;
                arenas.ContextsUsed += prefix.Length + 1;
            }

            int blobOffset = arenas.BlobsUsed;
            arenas.Blobs[blobOffset] = (byte)marker;
            arenas.Values[count] = new AeadBatchValue(arenas.PlainTextsUsed, length, blobOffset + 1, !prefix.IsEmpty, contextOffset, prefix.Length + 1);
            arenas.Properties[count] = new BatchedProperty(property.ValueStart, property.ValueEnd, blobOffset, 1 + cellLength);
            count++;
            arenas.PlainTextsUsed += length;
            arenas.BlobsUsed += 1 + cellLength;

            written += Base64.GetMaxEncodedToUtf8Length(1 + cellLength) + 2;
            cursor = lastValueEnd = property.ValueEnd;
            CheckOutputLength(written + (document.Length - cursor), pass.MaxLength);
        }

        return count;
    }

    // What EncryptScannedValue and EncryptValue hand the key, by the same mapping (PlainValue), into plainText.
    private static int GatherPlainText(scoped in DocumentEncryption pass, in PropertyRecord property, int pathIndex, Span<byte> plainText, out TypeMarker marker)
    {
        ReadOnlySpan<byte> document = pass.Document;
        switch (property.ValueType)
        {
            case JsonTokenType.String when !property.ValueEscaped:
                marker = TypeMarker.String;
                return Copy(document[(property.ValueStart + 1)..(property.ValueEnd - 1)], plainText);

            case JsonTokenType.True:
            case JsonTokenType.False:
                marker = PlainValue.Boolean(property.ValueType == JsonTokenType.True, plainText);
                return ScalarEncoding.Length;
        }

        // The scan judged the value well-formed and within the depth limit; the reader only decodes it.
        ReadOnlySpan<byte> value = document[property.ValueStart..property.ValueEnd];
        var reader = new Utf8JsonReader(value, JsonDepth.ReaderOptions(pass.MaxDepth, 0));
        reader.Read();
        Span<byte> scalar = stackalloc byte[ScalarEncoding.Length];
        EncryptionPlan plan = pass.Plan;
        marker = PlainValue.Classify(ref reader, scalar, !plan.GetDeterministicPrefix(pathIndex).IsEmpty, plan.GetPath(pathIndex), plan.DataEncryptionKeyId);
        switch (marker)
        {
            case TypeMarker.String:
                return reader.ValueIsEscaped ? JsonStringUnescaper.CopyString(ref reader, plainText) : Copy(reader.ValueSpan, plainText);

            case TypeMarker.Object:
            case TypeMarker.Array:
                int start = (int)reader.TokenStartIndex;
                JsonDepth.SkipContainer(ref reader, pass.MaxDepth, 0);
                ReadOnlySpan<byte> json = value[start..(int)reader.BytesConsumed];
                return JsonWhitespace.ContainsWhitespace(json) ? JsonWhitespace.Compact(json, plainText) : Copy(json, plainText);

            default:
                return Copy(scalar, plainText);
        }
    }

    private static int Copy(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        source.CopyTo(destination);
        return source.Length;
    }

    // The values' half of EncryptRecords' writing: verbatim JSON between the values, each as "base64(marker ‖ cell)".
    private static void WriteBatched(ReadOnlySpan<byte> document, IBufferWriter<byte> output, byte[] blobs, scoped ReadOnlySpan<BatchedProperty> properties)
    {
        int cursor = 0;
        foreach (BatchedProperty property in properties)
        {
            output.Write(document[cursor..property.ValueStart]);
            ReadOnlySpan<byte> blob = blobs.AsSpan(property.BlobOffset, property.BlobLength);
            int encodedLength = Base64.GetMaxEncodedToUtf8Length(blob.Length);
            Span<byte> span = output.GetSpan(encodedLength + 2);
            span[0] = (byte)'"';
            OperationStatus status = Base64.EncodeToUtf8(blob, span[1..], out _, out int encoded);
            Debug.Assert(status == OperationStatus.Done && encoded == encodedLength, "Base64 cannot fail with a large enough buffer.");
            span[encoded + 1] = (byte)'"';
            output.Advance(encoded + 2);
            cursor = property.ValueEnd;
        }
    }

    // Where one encrypted value was in the document and where its blob is.
    private readonly record struct BatchedProperty(int ValueStart, int ValueEnd, int BlobOffset, int BlobLength);

    // The three pooled arenas of one document and how much of each is used, and the per-value records.
    private ref struct BatchArenas
    {
        public readonly Span<byte> PlainTexts;
        public readonly Span<byte> Blobs;
        public readonly Span<byte> Contexts;
        public readonly Span<AeadBatchValue> Values;
        public readonly Span<BatchedProperty> Properties;
        public int PlainTextsUsed;
        public int BlobsUsed;
        public int ContextsUsed;

        // How far into PlainTexts the value being gathered may have written (what a failure must wipe).
        public int PlainTextsReserved;

        public BatchArenas(Span<byte> plainTexts, Span<byte> blobs, Span<byte> contexts, Span<AeadBatchValue> values, Span<BatchedProperty> properties)
        {
            PlainTexts = plainTexts;
            Blobs = blobs;
            Contexts = contexts;
            Values = values;
            Properties = properties;
        }
    }
}
