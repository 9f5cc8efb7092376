using System.Buffers;
using System.Text.Json;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// The stream processor's read check of a policy's nested selectors (<see cref="PolicyScan"/> does the top level):
/// walks each top-level value a policy selector starts at, beside the document's own selector tree, and finds the
/// first non-null value at a policy position that the document's metadata does not list (or that sits under a name
/// equal to the selector's only ignoring case). Allocates nothing.
/// </summary>
internal static class NestedPolicyScan
{
    /// <summary>A value at a nested policy position that the metadata does not list.</summary>
    /// <param name="Rule">The policy rule's index, or -1 when there is none.</param>
    /// <param name="Start">The value's first byte in the input.</param>
    /// <param name="End">Just after its last byte.</param>
    /// <param name="Escaped">Whether the value is a string with escapes.</param>
    /// <param name="CellShaped">Whether it is a string shaped like a cell (never plaintext).</param>
    internal readonly record struct Finding(int Rule, int Start, int End, bool Escaped, bool CellShaped);

    /// <summary>The first cell-shaped unlisted value, else the first unlisted one, else a finding with rule -1.</summary>
    public static Finding FindUnlisted(ReadOnlySpan<byte> input, DecryptionScan scan, in DocumentRecord document, PolicyRuleSet rules)
    {
        SelectorNode policy = rules.Plan.NestedSelectors;
        var found = new Finding(-1, 0, 0, false, false);
        if (policy.ChildCount == 0)
        {
            return found;
        }

        int anchor = document.Format == EnvelopeFormat.Extended ? document.AnchorProperty : -1;
        PropertyRecord[] properties = scan.Properties;
        int end = document.FirstProperty + document.PropertyCount;
        for (int i = document.FirstProperty; i < end; i++)
        {
            ref readonly PropertyRecord property = ref properties[i];
            if (i == document.EnvelopeProperty || i == anchor || property.ValueType == JsonTokenType.Null)
            {
                continue;
            }

            int child = SelectorLookup.Find(scan.GetName(input, property), policy, out int variant);
            if (child < 0 && variant < 0)
            {
                continue;
            }

            SelectorNode? listed = child >= 0 && property.NestedChild >= 0 ? document.Selectors!.Root.GetChild(property.NestedChild) : null;
            var reader = new Utf8JsonReader(input[property.ValueStart..property.ValueEnd], new JsonReaderOptions { MaxDepth = 1000 });
            reader.Read();
            Walk(ref reader, input, property.ValueStart, policy.GetChild(child >= 0 ? child : variant), listed, ref found);
            if (found.CellShaped)
            {
                return found;
            }
        }

        return found;
    }

    private static void Walk(ref Utf8JsonReader reader, ReadOnlySpan<byte> input, int offset, SelectorNode policy, SelectorNode? listed, ref Finding found)
    {
        if (policy.IsLeaf)
        {
            int start = offset + (int)reader.TokenStartIndex;
            JsonTokenType type = reader.TokenType;
            bool escaped = type == JsonTokenType.String && reader.ValueIsEscaped;
            reader.Skip();
            if (type == JsonTokenType.Null || listed is { IsLeaf: true } || found.CellShaped)
            {
                return;
            }

            int end = offset + (int)reader.BytesConsumed;
            bool cellShaped = type == JsonTokenType.String && IsCellShaped(input[start..end], escaped);
            if (found.Rule < 0 || cellShaped)
            {
                found = new Finding(policy.RuleIndex, start, end, escaped, cellShaped);
            }

            return;
        }

        if (reader.TokenType == JsonTokenType.StartObject && policy.ChildCount > 0)
        {
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                int child = SelectorLookup.Find(ref reader, policy, out int variant);
                SelectorNode? next = child >= 0 && listed is not null && listed.ChildCount > 0 ? FindListed(ref reader, listed) : null;
                reader.Read();
                if (child < 0 && variant < 0)
                {
                    reader.Skip();
                    continue;
                }

                // A case variant is never what the metadata lists: whatever it holds at a policy position counts.
                Walk(ref reader, input, offset, policy.GetChild(child >= 0 ? child : variant), child >= 0 ? next : null, ref found);
            }

            return;
        }

        if (reader.TokenType == JsonTokenType.StartArray && policy.Elements is { } elements)
        {
            while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
            {
                Walk(ref reader, input, offset, elements, listed?.Elements, ref found);
            }

            return;
        }

        reader.Skip();
    }

    private static SelectorNode? FindListed(ref Utf8JsonReader reader, SelectorNode listed)
    {
        int child = SelectorLookup.Find(ref reader, listed, out _);
        return child >= 0 ? listed.GetChild(child) : null;
    }

    private static bool IsCellShaped(ReadOnlySpan<byte> token, bool escaped)
    {
        if (!escaped)
        {
            return EncryptedCell.IsCellShaped(token[1..^1]);
        }

        byte[] unescaped = ArrayPool<byte>.Shared.Rent(token.Length);
        try
        {
            return EncryptedCell.IsCellShaped(unescaped.AsSpan(0, JsonStringUnescaper.Unescape(token, unescaped)));
        }
        finally
        {
            Array.Clear(unescaped);
            ArrayPool<byte>.Shared.Return(unescaped);
        }
    }
}
