using System.Buffers;
using System.Text.Json;
using Encryption.Custom.Crypto.Chains;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

// The records loop with a document's values encrypted together (issue 37): AES-CBC is serial inside a value but
// independent across values, so the key encrypts them as interleaved chains (Crypto/Chains). The loop makes every
// check, error and output-length check of the value-by-value loop (StreamEncryptor.Records.cs) in the same order,
// gathering each value (top-level, or picked by a nested selector) into a ValueBatch instead of encrypting it; the
// batch encrypts and writes them every ValueBatch.Capacity values and at the end: the bytes the other loop writes.
internal static partial class StreamEncryptor
{
    // Only the library's own keys on a CPU that interleaves chains, unbound cells (bound ones have their own tag
    // input; the document commitment comes only with them), and no encrypted id (its text is converted per value,
    // IdCellText). Query tokens are computed in the gather, from the plaintext the cell will hold.
    private static bool CanEncryptBatched(scoped in DocumentEncryption pass)
    {
        EncryptionPlan plan = pass.Plan;
        if (!pass.Key.EncryptsBatches || !pass.Binding.IsEmpty)
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

    /// <summary>Encrypts a scanned document's values in batches; writes and throws what the value-by-value loop does.</summary>
    private static void EncryptScannedBatched(scoped in DocumentEncryption pass, scoped Span<byte> encrypted, DecryptionScan scan)
    {
        ReadOnlySpan<byte> document = pass.Document;
        EncryptionPlan plan = pass.Plan;
        (int plainTextLength, int blobLength, int contextLength) = ValueBatch.GetArenaLengths(document.Length, plan);
        byte[] plainTexts = ArrayPool<byte>.Shared.Rent(plainTextLength);
        byte[] blobs = ArrayPool<byte>.Shared.Rent(blobLength);
        byte[] contexts = ArrayPool<byte>.Shared.Rent(contextLength);
        var batch = new ValueBatch(document, (plainTexts, blobs, contexts), stackalloc AeadBatchValue[ValueBatch.Capacity], stackalloc ValueBatch.Place[ValueBatch.Capacity]);
        try
        {
            ref DocumentRecord root = ref scan.Documents[0];
            int lastValueEnd = root.Start + 1;
            ulong nestedSeen = 0;
            int end = root.FirstProperty + root.PropertyCount;
            for (int i = root.FirstProperty; i < end; i++)
            {
                ref PropertyRecord property = ref scan.Properties[i];
                int pathIndex = ClassifyScanned(document, scan, plan, in property, encrypted, out int nestedRoot);
                if (nestedRoot >= 0)
                {
                    if ((nestedSeen & (1UL << nestedRoot)) != 0)
                    {
                        JsonErrors.ThrowDuplicateProperty(plan.GetPath(plan.NestedSelectors.GetChild(nestedRoot).FirstRuleIndex));
                    }

                    nestedSeen |= 1UL << nestedRoot;
                    GatherNested(pass, in property, plan.NestedSelectors.GetChild(nestedRoot), encrypted, ref batch);
                    lastValueEnd = property.ValueEnd;
                    CheckOutputLength(batch.Written + (document.Length - batch.Cursor), pass.MaxLength);
                    continue;
                }

                if (pathIndex < 0)
                {
                    lastValueEnd = property.ValueEnd;
                    continue;
                }

                batch.Add(pass, in property, pathIndex);
                lastValueEnd = property.ValueEnd;
                CheckOutputLength(batch.Written + (document.Length - batch.Cursor), pass.MaxLength);
            }

            batch.Flush(pass);
            WriteTail(pass, encrypted, root.PropertyCount > 0, batch.Cursor, lastValueEnd, batch.Written, default);
        }
        finally
        {
            // Plaintext, up to where a value that failed midway could have written; the blobs and contexts are public.
            batch.WipePlainTexts();
            ArrayPool<byte>.Shared.Return(plainTexts);
            ArrayPool<byte>.Shared.Return(blobs);
            ArrayPool<byte>.Shared.Return(contexts);
        }
    }

    // The values nested selectors pick inside one top-level value, gathered by the walk the value-by-value loop uses.
    private static void GatherNested(scoped in DocumentEncryption pass, in PropertyRecord property, SelectorNode node, scoped Span<byte> encrypted, ref ValueBatch batch)
    {
        DocumentEncryption inner = ValuePass(pass, property.ValueStart, property.ValueEnd);
        var reader = new Utf8JsonReader(inner.Document, JsonDepth.ReaderOptions(inner.MaxDepth, 0));
        reader.Read();
        batch.Offset = property.ValueStart;
        NestedEncryptor.Walk(ref reader, inner, node, encrypted, ref batch);
    }
}
