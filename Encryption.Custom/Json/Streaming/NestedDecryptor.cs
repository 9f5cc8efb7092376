using System.Buffers;
using System.Text.Json;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// Decrypts the values a format 101 document's nested selectors pick inside one top-level value: a reader walks the
/// value against the document's selector tree, the bytes between selected values are copied verbatim, and each
/// selected non-null value must be a cell (a JSON string), which is decrypted in place. Nothing is allocated.
/// </summary>
internal static class NestedDecryptor
{
    /// <summary>Writes the decrypted form of <paramref name="value"/> (one top-level property's value).</summary>
    /// <returns>Bit <c>i</c> set for each selector <c>i</c> of which a value was decrypted.</returns>
    /// <exception cref="EncryptionException">A selected value is not a string, or not valid or not authentic; names the selector and key id.</exception>
    /// <remarks>checks, per selector: the binding its cells must carry and the query tokens they must verify.</remarks>
    public static ulong Write(ReadOnlySpan<byte> value, DocumentSelectors selectors, SelectorNode node, in DecryptionOutput target, int maxDepth, scoped in SelectorChecks checks)
    {
        // The scan validated the value's syntax and depth already; the value sits at level 1 of the document.
        var reader = new Utf8JsonReader(value, new JsonReaderOptions { MaxDepth = maxDepth + 1 });
        reader.Read();
        int cursor = 0;
        ulong decrypted = 0;
        Walk(ref reader, new ValueWalk(value, selectors, target, maxDepth, checks), node, ref cursor, ref decrypted);
        target.Output.Write(value[cursor..]);
        return decrypted;
    }

    private static void Walk(ref Utf8JsonReader reader, scoped in ValueWalk walk, SelectorNode node, ref int cursor, ref ulong decrypted)
    {
        ReadOnlySpan<byte> value = walk.Value;
        DocumentSelectors selectors = walk.Selectors;
        if (node.IsLeaf)
        {
            if (reader.TokenType == JsonTokenType.Null)
            {
                return;
            }

            ReadOnlySpan<byte> name = selectors.Utf8Names[node.RuleIndex];
            if (reader.TokenType != JsonTokenType.String)
            {
                JsonErrors.ThrowNotAnEncryptedString(name, walk.Target.KeyId);
            }

            int start = (int)reader.TokenStartIndex;
            walk.Target.Output.Write(value[cursor..start]);
            ReadOnlySpan<byte> token = value[start..(int)reader.BytesConsumed];

            // The plaintext's own depth limit is what is left below this value (a top-level value sits at level 1).
            int remainingDepth = walk.MaxDepth - reader.CurrentDepth;
            if (reader.ValueIsEscaped)
            {
                WriteEscaped(token, name, walk.Target, remainingDepth, walk.Checks.Get(node.RuleIndex, selectors));
            }
            else
            {
                ValueDecryptor.Write(token[1..^1], name, walk.Target, remainingDepth, walk.Checks.Get(node.RuleIndex, selectors));
            }

            cursor = (int)reader.BytesConsumed;
            decrypted |= 1UL << node.RuleIndex;
            return;
        }

        if (reader.TokenType == JsonTokenType.StartObject && node.ChildCount > 0)
        {
            // A node has at most SelectorRules.MaxNestedSelectors children: one bit each.
            ulong seen = 0;
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                // Exact names only: what the metadata lists is what was encrypted (the policy check judges the rest).
                int child = SelectorLookup.Find(ref reader, node, out _);
                reader.Read();
                if (child < 0)
                {
                    reader.Skip();
                    continue;
                }

                // A repeated name is refused, as at the top level: which one counts would depend on the reader.
                if ((seen & (1UL << child)) != 0)
                {
                    JsonErrors.ThrowDuplicateProperty(selectors.Utf8Names[node.GetChild(child).FirstRuleIndex]);
                }

                seen |= 1UL << child;

                Walk(ref reader, walk, node.GetChild(child), ref cursor, ref decrypted);
            }

            return;
        }

        if (reader.TokenType == JsonTokenType.StartArray && node.Elements is { } elements)
        {
            while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
            {
                Walk(ref reader, walk, elements, ref cursor, ref decrypted);
            }

            return;
        }

        reader.Skip();
    }

    private static void WriteEscaped(ReadOnlySpan<byte> token, ReadOnlySpan<byte> name, in DecryptionOutput target, int maxDepth, CellCheck check)
    {
        // Some writers escape '+' and '/' in the base64.
        byte[] rented = ArrayPool<byte>.Shared.Rent(token.Length);
        try
        {
            int length = JsonStringUnescaper.Unescape(token, rented);
            ValueDecryptor.Write(rented.AsSpan(0, length), name, target, maxDepth, check);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(rented);
        }
    }

    // What the walk of one top-level value carries unchanged: the value (the reader's input), the document's
    // selectors (names for errors), where the plaintext goes, the depth limit and what the selectors' cells must prove.
    private readonly ref struct ValueWalk(ReadOnlySpan<byte> value, DocumentSelectors selectors, DecryptionOutput target, int maxDepth, SelectorChecks checks)
    {
        public readonly ReadOnlySpan<byte> Value = value;
        public readonly DocumentSelectors Selectors = selectors;
        public readonly DecryptionOutput Target = target;
        public readonly int MaxDepth = maxDepth;
        public readonly SelectorChecks Checks = checks;
    }
}
