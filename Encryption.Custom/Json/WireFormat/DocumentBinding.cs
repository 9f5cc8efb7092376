// Computes a document's CellBinding (its digest D) from what both processors find in it: the string id and the raw
// JSON token at each partition-key path of the BindingTarget. One place for the rules, so both processors bind
// the same document to the same D: the id must be one string, each partition-key property appears at most once,
// and a missing one is hashed as "missing" (the service stores such a document under the undefined key).
using Encryption.Custom.Crypto.Binding;

namespace Encryption.Custom.Json.WireFormat;

/// <summary>Builds the binding of one document from its id and partition-key tokens.</summary>
internal static class DocumentBinding
{
    /// <summary>Computes D.</summary>
    /// <param name="target">Scope and partition-key paths.</param>
    /// <param name="algorithm">The document's <c>_ea</c>.</param>
    /// <param name="keyId">The document's <c>_en</c>.</param>
    /// <param name="id">The document's id, UTF-8, unescaped.</param>
    /// <param name="partitionKeyTokens">One range of <paramref name="source"/> per partition-key path: its raw JSON token, empty when the property is missing.</param>
    /// <param name="source">The document the ranges point into.</param>
    public static CellBinding Compute(BindingTarget target, string algorithm, string keyId, ReadOnlySpan<byte> id, ReadOnlySpan<Range> partitionKeyTokens, ReadOnlySpan<byte> source)
    {
        Span<byte> scratch = stackalloc byte[BindingDigestBuilder.RecommendedScratchSize];
        CellBindingBuilder builder = CellBindingBuilder.Create(scratch, algorithm, keyId, target.Scope, id, target.PartitionKeyCount);
        try
        {
            for (int i = 0; i < target.PartitionKeyCount; i++)
            {
                ReadOnlySpan<byte> token = source[partitionKeyTokens[i]];
                if (token.IsEmpty)
                {
                    builder.AddMissing();
                }
                else
                {
                    builder.AddJsonValue(token);
                }
            }

            return builder.Build();
        }
        finally
        {
            builder.Dispose();
        }
    }

    /// <summary>The refusal when a document to bind has no id, or an id that is not a string.</summary>
    public static EncryptionException MissingId() =>
        new(
            EncryptionErrorKind.MalformedDocument,
            "The document has no string 'id', which binding needs: every bound value is tied to its document's id and partition key.");

    /// <summary>The refusal when a document to bind repeats the id or a partition-key property.</summary>
    public static EncryptionException Ambiguous(string path) =>
        new(
            EncryptionErrorKind.MalformedDocument,
            $"The document holds '{path}' more than once, so the values it binds to are ambiguous: it is refused.",
            path: path);

    /// <summary>The refusal when a bound document is read without the container's binding.</summary>
    public static EncryptionException NoBindingTarget(string keyId) =>
        new(
            EncryptionErrorKind.UnsupportedFormat,
            "The document's values are bound to their document and container ('bind' in '_ev.crit'), but this reader was not given the container's binding (read it through an encryption container whose policy binds).",
            keyId);
}
