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
    public static CellBinding Compute(ReadOnlySpan<byte> document, BindingTarget target, string algorithm, string keyId, int maxDepth)
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
