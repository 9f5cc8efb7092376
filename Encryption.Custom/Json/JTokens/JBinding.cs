// The Newtonsoft processor's document binding: the same inputs as the stream processor's BindingScan (the string id,
// the JSON token at each partition-key path), taken from the parsed document and hashed by the shared
// DocumentBinding, so both processors bind a document to the same D.
using System.Text;
using Encryption.Custom.Json.WireFormat;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Json.JTokens;

/// <summary>Computes the binding of a parsed document.</summary>
internal static class JBinding
{
    /// <exception cref="EncryptionException">No string id, or a partition-key value no key can hold.</exception>
    /// <param name="document">The document.</param>
    /// <param name="target">Scope and partition-key paths.</param>
    /// <param name="algorithm">The document's algorithm.</param>
    /// <param name="keyId">The document's key id.</param>
    /// <param name="stored">For a writer (plaintext document): how the plan stores the id and key (see <see cref="Streaming.StoredKeyTokens"/>); <see langword="null"/> for a reader.</param>
    public static CellBinding Compute(JObject document, BindingTarget target, string algorithm, string keyId, Streaming.StoredKeyTokens? stored = null)
    {
        if (!document.TryGetValue("id", out JToken? id) || id.Type != JTokenType.String)
        {
            throw DocumentBinding.MissingId();
        }

        var tokens = new StringBuilder();
        Span<Range> ranges = stackalloc Range[BindingTarget.MaxPartitionKeyPaths];
        for (int i = 0; i < target.PartitionKeyCount; i++)
        {
            int start = tokens.Length;
            if (document.TryGetValue(target.GetPartitionKeyPath(i)[1..], out JToken? value))
            {
                string token = value.ToString(Formatting.None);
                tokens.Append(stored is { } keys ? Encoding.ASCII.GetString(keys.StoreKey(target.GetPartitionKeyPath(i), Encoding.UTF8.GetBytes(token))) : token);
            }

            ranges[i] = new Range(Encoding.UTF8.GetByteCount(tokens.ToString(0, start)), Encoding.UTF8.GetByteCount(tokens.ToString()));
        }

        byte[] source = Encoding.UTF8.GetBytes(tokens.ToString());
        byte[] storedId = stored is { } idKeys ? idKeys.StoreId(Encoding.UTF8.GetBytes(id.ToString(Formatting.None))) : Encoding.UTF8.GetBytes((string)id!);
        return DocumentBinding.Compute(target, algorithm, keyId, storedId, ranges[..target.PartitionKeyCount], source);
    }
}
