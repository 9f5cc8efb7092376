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
    public static CellBinding Compute(JObject document, BindingTarget target, string algorithm, string keyId)
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
                tokens.Append(value.ToString(Formatting.None));
            }

            ranges[i] = new Range(Encoding.UTF8.GetByteCount(tokens.ToString(0, start)), Encoding.UTF8.GetByteCount(tokens.ToString()));
        }

        byte[] source = Encoding.UTF8.GetBytes(tokens.ToString());
        return DocumentBinding.Compute(target, algorithm, keyId, Encoding.UTF8.GetBytes((string)id!), ranges[..target.PartitionKeyCount], source);
    }
}
