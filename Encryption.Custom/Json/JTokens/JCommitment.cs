// The Newtonsoft processor's document commitment (wire-format.md "Document commitment"). The stream processor chains
// each cell as it writes it; this processor encrypts top-level paths in the plan's order, so it chains afterwards,
// walking the document in its own order (properties and array elements as they appear, which is the order they are
// serialized in) over the same positions the stream processor writes cells at: a top-level property that _ep lists,
// and a selected leaf under a nested selector. Either way every cell at a listed position is one step, in document
// order, so both processors write the same commitment for the same cells.
using Encryption.Custom.Crypto.Binding;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Json.JTokens;

/// <summary>Computes the chain and the committed anchor of a parsed document.</summary>
internal static class JCommitment
{
    /// <summary>The chain over the cells of <paramref name="document"/>, in document order.</summary>
    /// <param name="document">The document holding cells (encrypted, not yet decrypted).</param>
    /// <param name="isListedTopLevel">Whether a top-level property name is a listed top-level path.</param>
    /// <param name="nested">The nested selectors (the root stands for the document), or <see langword="null"/> for none.</param>
    public static CommitmentChain Chain(JObject document, Func<string, bool> isListedTopLevel, SelectorNode? nested)
    {
        var chain = default(CommitmentChain);
        foreach (JProperty property in document.Properties())
        {
            if (isListedTopLevel(property.Name))
            {
                // The id's cell in its stored alphabet (IdCellText) steps the chain as its standard form does.
                Append(ref chain, property.Name == "id" && property.Value.Type == JTokenType.String ? IdCellText.ForCodec(IdCellText.Path, (string)property.Value!) : property.Value);
                continue;
            }

            int child = nested?.FindChild(property.Name) ?? -1;
            if (child >= 0)
            {
                Walk(ref chain, property.Value, nested!.GetChild(child));
            }
        }

        return chain;
    }

    /// <summary>The anchor value holding the commitment: base64(EC 01 ‖ C).</summary>
    public static string Anchor(DataEncryptionKey key, in CellBinding binding, IEnumerable<string> listed, in CommitmentChain chain)
    {
        byte[] block = DocumentCommitment.CreateSelectorBlock(listed);
        Span<byte> anchor = stackalloc byte[ExtendedEnvelope.AnchorLength];
        anchor[0] = ExtendedEnvelope.AnchorTag;
        anchor[1] = ExtendedEnvelope.AnchorVersion;
        key.ComputeCommitmentLeased(binding.DocumentDigest, block, chain, anchor[2..]);
        return Convert.ToBase64String(anchor);
    }

    private static void Walk(ref CommitmentChain chain, JToken value, SelectorNode node)
    {
        if (node.IsLeaf)
        {
            Append(ref chain, value);
            return;
        }

        if (value is JObject obj && node.ChildCount > 0)
        {
            foreach (JProperty property in obj.Properties())
            {
                int child = node.FindChild(property.Name);
                if (child >= 0)
                {
                    Walk(ref chain, property.Value, node.GetChild(child));
                }
            }
        }
        else if (value is JArray array && node.Elements is { } elements)
        {
            foreach (JToken element in array)
            {
                Walk(ref chain, element, elements);
            }
        }
    }

    // A cell is a string; null (never encrypted) is no step. Anything else at a listed position is not a cell, which
    // the decryption itself refuses; the writer never produces it.
    private static void Append(ref CommitmentChain chain, JToken value)
    {
        if (value.Type != JTokenType.String)
        {
            return;
        }

        Append(ref chain, (string)value!);
    }

    private static void Append(ref CommitmentChain chain, string value)
    {
        if (value.Length == 0)
        {
            // Not a stored id's canonical form (IdCellText): no step, so the commitment does not verify.
            return;
        }

        byte[] blob = Convert.FromBase64String(value);
        chain.Append(blob[0], blob.AsSpan(1));
    }
}
