using System.Text.Json;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// Encrypts the values a nested selector picks inside one top-level value, in the stream encryptor's single pass:
/// the reader walks the value against the <see cref="SelectorNode"/> tree, the bytes between selected values are
/// copied verbatim, and each selected value (a leaf, or a whole object or array) becomes its own cell, as a
/// top-level path's value does. Nothing is allocated.
/// </summary>
/// <remarks>
/// A value whose shape does not fit the selector (a string where <c>/address/city</c> expects an object) holds
/// nothing the selector names and is copied as it is; <c>null</c> stays <c>null</c>. A name equal to a selector's only
/// ignoring case is refused, as at the top level; a repeated selected name is refused (which one counts would
/// depend on the reader).
/// </remarks>
internal static class NestedEncryptor
{
    /// <summary>Walks the value the reader is on (its first token) and leaves the reader on its last token.</summary>
    /// <param name="reader">A reader over the value (its input is <see cref="DocumentEncryption.Document"/> of <paramref name="pass"/>).</param>
    /// <param name="pass">The document's encryption: its plan holds the paths, its depth limit applies.</param>
    /// <param name="node">The selector node for this value.</param>
    /// <param name="flags">Per path: set to <see cref="EncryptionPlan.EncryptedFlag"/> when a value of it was encrypted.</param>
    /// <param name="sink">What happens at each selected value: encrypted and written at once, or gathered for a batch (the sink counts the output).</param>
    public static void Walk<TSink>(ref Utf8JsonReader reader, scoped in DocumentEncryption pass, SelectorNode node, scoped Span<byte> flags, ref TSink sink)
        where TSink : ISelectedValueSink, allows ref struct
    {
        if (node.IsLeaf)
        {
            if (reader.TokenType == JsonTokenType.Null)
            {
                return;
            }

            int rule = node.RuleIndex;
            sink.Take(ref reader, pass, rule);
            flags[rule] = EncryptionPlan.EncryptedFlag;
            return;
        }

        if (reader.TokenType == JsonTokenType.StartObject && node.ChildCount > 0)
        {
            WalkObject(ref reader, pass, node, flags, ref sink);
            return;
        }

        if (reader.TokenType == JsonTokenType.StartArray && node.Elements is { } elements)
        {
            JsonDepth.Check(reader.CurrentDepth, pass.MaxDepth, 0);
            while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
            {
                Walk(ref reader, pass, elements, flags, ref sink);
            }

            return;
        }

        JsonDepth.SkipValue(ref reader, pass.MaxDepth, 0);
    }

    private static void WalkObject<TSink>(ref Utf8JsonReader reader, scoped in DocumentEncryption pass, SelectorNode node, scoped Span<byte> flags, ref TSink sink)
        where TSink : ISelectedValueSink, allows ref struct
    {
        JsonDepth.Check(reader.CurrentDepth, pass.MaxDepth, 0);

        // A node has at most SelectorRules.MaxNestedSelectors children: one bit each.
        ulong seen = 0;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            int child = SelectorLookup.Find(ref reader, node, out int variant);
            if (variant >= 0)
            {
                ThrowCaseVariant(ref reader, pass.Plan, node.GetChild(variant));
            }

            reader.Read();
            if (child < 0)
            {
                JsonDepth.SkipValue(ref reader, pass.MaxDepth, 0);
                continue;
            }

            SelectorNode next = node.GetChild(child);
            if ((seen & (1UL << child)) != 0)
            {
                JsonErrors.ThrowDuplicateProperty(pass.Plan.GetPath(next.FirstRuleIndex));
            }

            seen |= 1UL << child;
            Walk(ref reader, pass, next, flags, ref sink);
        }
    }

    private static void ThrowCaseVariant(ref Utf8JsonReader reader, EncryptionPlan plan, SelectorNode variant)
    {
        string name = reader.GetString() ?? string.Empty;
        JsonErrors.ThrowCaseVariant(name, plan.GetPath(variant.FirstRuleIndex), plan.DataEncryptionKeyId);
    }
}

/// <summary>What <see cref="NestedEncryptor.Walk"/> does with each selected value it reaches.</summary>
internal interface ISelectedValueSink
{
    /// <summary>Takes the value the reader is on (its first token; not <c>null</c>) and leaves the reader on its last token.</summary>
    void Take(ref Utf8JsonReader reader, scoped in DocumentEncryption pass, int rule);
}
