// The stream processor writes and reads values in one pass, but a bound value's tag covers the document's id and
// partition key, which may come after it. So a bound document is first skimmed at its top level for those tokens
// (a reader over the same span: no allocation), and D is computed before the first value is touched.
using System.Text.Json;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>Finds a document's id and partition-key tokens at its top level and computes its binding.</summary>
internal static class BindingScan
{
    private const string IdPath = "/id";

    /// <summary>Computes the binding of the JSON object <paramref name="document"/>.</summary>
    /// <exception cref="EncryptionException">No string id, a repeated id or partition-key property, or a partition-key value no key can hold.</exception>
    /// <param name="document">The document.</param>
    /// <param name="target">Scope and partition-key paths.</param>
    /// <param name="algorithm">The document's algorithm.</param>
    /// <param name="keyId">The document's key id.</param>
    /// <param name="maxDepth">The depth limit.</param>
    /// <param name="stored">
    /// For a writer (the document is plaintext): how the plan stores the id and partition key, which the digest covers
    /// as stored; <see langword="null"/> for a reader, whose document holds them as stored.
    /// </param>
    public static CellBinding Compute(ReadOnlySpan<byte> document, BindingTarget target, string algorithm, string keyId, int maxDepth, StoredKeyTokens? stored = null)
    {
        Span<Range> partitionKeys = stackalloc Range[BindingTarget.MaxPartitionKeyPaths];
        partitionKeys.Clear();
        Range id = default;
        bool idEscaped = false;
        var reader = new Utf8JsonReader(document, JsonDepth.ReaderOptions(maxDepth, 0));
        reader.Read();
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            bool isId = reader.ValueTextEquals("id"u8);
            int partitionKey = FindPartitionKey(ref reader, target);
            reader.Read();
            int start = (int)reader.TokenStartIndex;
            JsonDepth.SkipValue(ref reader, maxDepth, 0);
            var token = new Range(start, (int)reader.BytesConsumed);
            if (isId)
            {
                if (!id.Equals(default(Range)))
                {
                    throw DocumentBinding.Ambiguous(IdPath);
                }

                if (reader.TokenType != JsonTokenType.String)
                {
                    throw DocumentBinding.MissingId();
                }

                id = token;
                idEscaped = reader.ValueIsEscaped;
            }

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

        ReadOnlySpan<byte> idToken = document[id];
        if (stored is { } keys && StoredKeyTokens.Apply(keys.Plan, target))
        {
            return ComputeStored(document, target, (algorithm, keyId), idToken, partitionKeys, keys);
        }

        if (!idEscaped)
        {
            return DocumentBinding.Compute(target, algorithm, keyId, idToken[1..^1], partitionKeys, document);
        }

        var scratch = default(ScratchBuffer);
        try
        {
            Span<byte> unescaped = idToken.Length <= ScratchBuffer.StackLimit ? stackalloc byte[ScratchBuffer.StackLimit] : scratch.Rent(idToken.Length);
            int length = JsonStringUnescaper.Unescape(idToken, unescaped);
            return DocumentBinding.Compute(target, algorithm, keyId, unescaped[..length], partitionKeys, document);
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

    private static int FindPartitionKey(ref Utf8JsonReader reader, BindingTarget target)
    {
        if (target.PartitionKeyCount == 0)
        {
            return -1;
        }

        if (!reader.ValueIsEscaped)
        {
            return target.FindPartitionKey(reader.ValueSpan);
        }

        Span<byte> name = stackalloc byte[ScratchBuffer.StackLimit];
        if (reader.ValueSpan.Length > name.Length)
        {
            // Longer than any partition-key path the service accepts.
            return -1;
        }

        return target.FindPartitionKey(name[..JsonStringUnescaper.CopyString(ref reader, name)]);
    }
}
