using System.Buffers;
using Encryption.Custom.Crypto.Chains;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

// The records loop with a document's values encrypted together (issue 37): AES-CBC is serial inside a value but
// independent across values, so the key encrypts them as interleaved chains (Crypto/Chains). The same loop
// (StreamEncryptor.Records.cs) hands each value (top-level, or picked by a nested selector) to a ValueBatch instead of
// a CellWriter; the batch encrypts and writes them every ValueBatch.Capacity values and at the end: the bytes the
// CellWriter writes.
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
        (int plainTextLength, int blobLength, int contextLength) = ValueBatch.GetArenaLengths(pass.Document.Length, pass.Plan);
        byte[] plainTexts = ArrayPool<byte>.Shared.Rent(plainTextLength);
        byte[] blobs = ArrayPool<byte>.Shared.Rent(blobLength);
        byte[] contexts = ArrayPool<byte>.Shared.Rent(contextLength);
        var batch = new ValueBatch(pass.Document, (plainTexts, blobs, contexts), stackalloc AeadBatchValue[ValueBatch.Capacity], stackalloc ValueBatch.Place[ValueBatch.Capacity]);
        try
        {
            EncryptRecords(pass, encrypted, scan, ref batch);
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
}
