using System.Buffers;
using System.Text.Json;
using Encryption.Custom.Crypto.Binding;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.Values;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

// The common case of encryption without Utf8JsonReader over the whole document: the hand-written scan that
// decryption uses (FastPathScanner) finds the top-level properties, and only the values to encrypt are looked at again.
internal static partial class StreamEncryptor
{
    /// <summary>
    /// Encrypts a document the fast-path scan accepts, writing exactly what the reader walk
    /// (<see cref="EncryptDocument"/>) writes and throwing what it throws, in the same order.
    /// </summary>
    /// <returns>
    /// <see langword="false"/>, with nothing written and <paramref name="encrypted"/> untouched, when the scan declines
    /// (malformed JSON, escaped names, depth near the limit): the reader walk then judges the document.
    /// </returns>
    /// <remarks>
    /// The scan covers the whole document before anything is written, so a document that is malformed anywhere goes to
    /// the reader and its error; after a scan is accepted, the rules are the reader walk's own (<see cref="Match"/>, the
    /// reserved names, duplicates, <see cref="EncryptValue(ref Utf8JsonReader, ReadOnlySpan{byte}, IBufferWriter{byte}, DataEncryptionKey, in CellTarget, int, ref CommitmentChain)"/>).
    /// Plans with nested selectors use the reader walk, which descends into values.
    /// </remarks>
    private static bool TryEncryptScanned(scoped in DocumentEncryption pass, scoped Span<byte> encrypted)
    {
        ReadOnlySpan<byte> document = pass.Document;
        IBufferWriter<byte> output = pass.Output;
        EncryptionPlan plan = pass.Plan;
        int maxLength = pass.MaxLength;
        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            if (!FastPathScanner.TryScanDocument(document, scan, pass.MaxDepth))
            {
                return false;
            }

            if (CanEncryptBatched(pass))
            {
                EncryptScannedBatched(pass, encrypted, scan);
                return true;
            }

            ref DocumentRecord root = ref scan.Documents[0];
            long written = 0;
            int cursor = 0;
            int lastValueEnd = root.Start + 1;
            int end = root.FirstProperty + root.PropertyCount;
            for (int i = root.FirstProperty; i < end; i++)
            {
                ref PropertyRecord property = ref scan.Properties[i];
                int pathIndex = ClassifyScanned(document, plan, in property, encrypted);
                if (pathIndex < 0)
                {
                    lastValueEnd = property.ValueEnd;
                    continue;
                }

                output.Write(document[cursor..property.ValueStart]);
                written += property.ValueStart - cursor;
                written += EncryptScannedValue(pass, in property, pathIndex);
                cursor = lastValueEnd = property.ValueEnd;
                CheckOutputLength(written + (document.Length - cursor), maxLength);
            }

            WriteScannedTail(pass, encrypted, root.PropertyCount > 0, cursor, lastValueEnd, written);
            return true;
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }

    // After the last encrypted value: the rest of the properties, the envelope, and the root's closing brace.
    // written counts the output up to cursor.
    private static void WriteScannedTail(scoped in DocumentEncryption pass, scoped ReadOnlySpan<byte> encrypted, bool hasProperties, int cursor, int lastValueEnd, long written)
    {
        ReadOnlySpan<byte> document = pass.Document;
        IBufferWriter<byte> output = pass.Output;
        EncryptionPlan plan = pass.Plan;
        CheckOutputLength(written + (document.Length - cursor) + (hasProperties ? 1 : 0) + plan.GetEnvelopeLength(encrypted), pass.MaxLength);
        output.Write(document[cursor..lastValueEnd]);
        if (hasProperties)
        {
            output.Write(","u8);
        }

        plan.WriteEnvelope(output, encrypted);
        output.Write(document[lastValueEnd..]);
    }

    // Unescaped strings and booleans are encrypted from the scan's bytes; numbers, escaped strings and containers
    // through a reader over the value alone, so that they follow the one mapping from JSON value to plaintext.
    private static int EncryptScannedValue(scoped in DocumentEncryption pass, in PropertyRecord property, int pathIndex)
    {
        ReadOnlySpan<byte> document = pass.Document;
        // The fast path never commits (Encrypt sends committing plans to the reader walk).
        var unused = default(CommitmentChain);
        switch (property.ValueType)
        {
            case JsonTokenType.String when !property.ValueEscaped:
                ReadOnlySpan<byte> text = document[(property.ValueStart + 1)..(property.ValueEnd - 1)];
                return WriteEncrypted(pass.Output, pass.Key, TypeMarker.String, text, new CellTarget(pass.Plan, pathIndex, pass.Binding), ref unused);

            case JsonTokenType.True:
            case JsonTokenType.False:
                Span<byte> boolean = stackalloc byte[ScalarEncoding.Length];
                TypeMarker marker = PlainValue.Boolean(property.ValueType == JsonTokenType.True, boolean);
                return WriteEncrypted(pass.Output, pass.Key, marker, boolean, new CellTarget(pass.Plan, pathIndex, pass.Binding), ref unused);

            default:
                // The scan judged the value well-formed and within the depth limit; the reader only decodes it.
                ReadOnlySpan<byte> value = document[property.ValueStart..property.ValueEnd];
                var reader = new Utf8JsonReader(value, JsonDepth.ReaderOptions(pass.MaxDepth, 0));
                reader.Read();
                return EncryptValue(ref reader, value, pass, pathIndex, ref unused);
        }
    }

    // What a scanned top-level property is to the plan: the index of the path whose value is to be encrypted (its flag
    // set, a repeat refused), or -1 for a value copied as it is (no path, or null). The per-value loop and the batched
    // gather classify through this one method, so they refuse the same inputs with the same errors. The scan declines
    // escaped names, so every name is the input's own bytes.
    private static int ClassifyScanned(ReadOnlySpan<byte> document, EncryptionPlan plan, in PropertyRecord property, scoped Span<byte> encrypted)
    {
        ReadOnlySpan<byte> name = document.Slice(property.NameOffset, property.NameLength);
        int pathIndex = Match(name, plan, out _);
        if (pathIndex < 0)
        {
            if (IsReservedName(name, plan))
            {
                JsonErrors.ThrowAlreadyEncrypted();
            }

            return -1;
        }

        if (encrypted[pathIndex] != NotSeen)
        {
            JsonErrors.ThrowDuplicateProperty(plan.GetPath(pathIndex));
        }

        encrypted[pathIndex] = property.ValueType == JsonTokenType.Null ? SeenNull : Encrypted;
        return property.ValueType == JsonTokenType.Null ? -1 : pathIndex;
    }
}
