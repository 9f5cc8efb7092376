// The stream processor writes and reads values in one pass, but a bound value's tag covers the document's id and
// partition key, which may come after it. So D is computed from the document's top-level records (DocumentScanner,
// which both directions read first anyway) before the first value is touched: no second pass over the document.
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>Finds a document's id and partition-key tokens at its top level and computes its binding.</summary>
internal static class BindingScan
{
    private const string IdPath = "/id";

    /// <summary>Computes the binding of the JSON object <paramref name="document"/>, scanning it first (inspection).</summary>
    /// <exception cref="EncryptionException">The document cannot be read, or it cannot be bound (as from its records).</exception>
    public static CellBinding Compute(ReadOnlySpan<byte> document, BindingTarget target, string algorithm, string keyId, int maxDepth)
    {
        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            DocumentScanner.ScanDocument(document, scan, maxDepth);
            return Compute(document, scan, scan.Documents[0], target, (algorithm, keyId));
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }

    /// <summary>Computes the binding of a scanned document from its top-level records.</summary>
    /// <exception cref="EncryptionException">No string id, a repeated id or partition-key property, or a partition-key value no key can hold.</exception>
    /// <param name="input">The scanned input (the record's offsets are into it).</param>
    /// <param name="scan">The scan holding the document's records.</param>
    /// <param name="document">The document's record.</param>
    /// <param name="target">Scope and partition-key paths.</param>
    /// <param name="envelope">The document's algorithm and key id.</param>
    /// <param name="stored">
    /// For a writer (the document is plaintext): how the plan stores the id and partition key, which the digest covers
    /// as stored; <see langword="null"/> for a reader, whose document holds them as stored.
    /// </param>
    public static CellBinding Compute(ReadOnlySpan<byte> input, DecryptionScan scan, in DocumentRecord document, BindingTarget target, (string Algorithm, string KeyId) envelope, StoredKeyTokens? stored = null)
    {
        Span<Range> partitionKeys = stackalloc Range[BindingTarget.MaxPartitionKeyPaths];
        partitionKeys.Clear();
        Range id = default;
        bool idEscaped = false;
        int end = document.FirstProperty + document.PropertyCount;
        for (int i = document.FirstProperty; i < end; i++)
        {
            ref PropertyRecord property = ref scan.Properties[i];
            ReadOnlySpan<byte> name = scan.GetName(input, property);
            var token = new Range(property.ValueStart, property.ValueEnd);
            if (name.SequenceEqual("id"u8))
            {
                if (!id.Equals(default(Range)))
                {
                    throw DocumentBinding.Ambiguous(IdPath);
                }

                if (property.ValueType != System.Text.Json.JsonTokenType.String)
                {
                    throw DocumentBinding.MissingId();
                }

                id = token;
                idEscaped = property.ValueEscaped;
            }

            int partitionKey = target.PartitionKeyCount == 0 ? -1 : target.FindPartitionKey(name);
            if (partitionKey >= 0)
            {
                if (!partitionKeys[partitionKey].Equals(default(Range)))
                {
                    throw DocumentBinding.Ambiguous(target.GetPartitionKeyPath(partitionKey));
                }

                partitionKeys[partitionKey] = token;
            }
        }

        if (id.Equals(default(Range)))
        {
            throw DocumentBinding.MissingId();
        }

        ReadOnlySpan<byte> idToken = input[id];
        if (stored is { } keys && StoredKeyTokens.Apply(keys.Plan, target))
        {
            return ComputeStored(input, target, envelope, idToken, partitionKeys, keys);
        }

        if (!idEscaped)
        {
            return DocumentBinding.Compute(target, envelope.Algorithm, envelope.KeyId, idToken[1..^1], partitionKeys, input);
        }

        var scratch = default(ScratchBuffer);
        try
        {
            Span<byte> unescaped = idToken.Length <= ScratchBuffer.StackLimit ? stackalloc byte[ScratchBuffer.StackLimit] : scratch.Rent(idToken.Length);
            int length = JsonStringUnescaper.Unescape(idToken, unescaped);
            return DocumentBinding.Compute(target, envelope.Algorithm, envelope.KeyId, unescaped[..length], partitionKeys, input);
        }
        finally
        {
            scratch.Dispose();
        }
    }

    // The digest over the id and partition-key tokens as the writer will store them (StoredKeyTokens). Only a plan
    // that encrypts the id or the key gets here, and it allocates the stored tokens: a few hundred bytes per document.
    private static CellBinding ComputeStored(ReadOnlySpan<byte> document, BindingTarget target, (string Algorithm, string KeyId) envelope, ReadOnlySpan<byte> idToken, ReadOnlySpan<Range> partitionKeys, StoredKeyTokens keys)
    {
        byte[] id = keys.StoreId(idToken);
        var source = new List<byte>();
        Span<Range> ranges = stackalloc Range[BindingTarget.MaxPartitionKeyPaths];
        ranges.Clear();
        for (int i = 0; i < target.PartitionKeyCount; i++)
        {
            ReadOnlySpan<byte> token = document[partitionKeys[i]];
            if (token.IsEmpty)
            {
                continue;
            }

            int start = source.Count;
            source.AddRange(keys.StoreKey(target.GetPartitionKeyPath(i), token));
            ranges[i] = new Range(start, source.Count);
        }

        return DocumentBinding.Compute(target, envelope.Algorithm, envelope.KeyId, id, ranges, source.ToArray());
    }
}
