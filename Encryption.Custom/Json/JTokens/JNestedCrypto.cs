using System.Diagnostics;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Json.JTokens;

/// <summary>
/// The Newtonsoft processor's walk of nested selectors, with the stream processor's rules (<c>NestedEncryptor</c>,
/// <c>NestedDecryptor</c>): each selected non-null value is its own cell; a value whose shape does not fit the selector
/// holds nothing it names; a name equal to a selector's only ignoring case is refused when writing.
/// </summary>
internal static class JNestedCrypto
{
    /// <summary>Encrypts, in place, what <paramref name="node"/> selects in <paramref name="value"/> (a top-level value).</summary>
    /// <param name="value">The value.</param>
    /// <param name="node">The selector node for it.</param>
    /// <param name="key">The key.</param>
    /// <param name="plan">The plan.</param>
    /// <param name="encrypted">Per path: set when a value of it was encrypted.</param>
    /// <param name="binding">The document's binding (default when the plan does not bind).</param>
    public static void Encrypt(JToken value, SelectorNode node, DataEncryptionKey key, EncryptionPlan plan, bool[] encrypted, CellBinding binding)
    {
        if (node.IsLeaf)
        {
            if (value.Type != JTokenType.Null)
            {
                value.Replace(new JValue(JTokenValueCodec.Encrypt(value, key, plan, node.RuleIndex, binding)));
                encrypted[node.RuleIndex] = true;
            }

            return;
        }

        if (value is JObject obj && node.ChildCount > 0)
        {
            foreach (JProperty property in obj.Properties().ToList())
            {
                int child = node.FindChild(property.Name);
                if (child >= 0)
                {
                    Encrypt(property.Value, node.GetChild(child), key, plan, encrypted, binding);
                    continue;
                }

                int variant = node.FindChildIgnoringCase(property.Name);
                if (variant >= 0)
                {
                    JsonErrors.ThrowCaseVariant(property.Name, plan.GetPath(node.GetChild(variant).FirstRuleIndex), plan.DataEncryptionKeyId);
                }
            }
        }
        else if (value is JArray array && node.Elements is { } elements)
        {
            foreach (JToken element in array.ToList())
            {
                Encrypt(element, elements, key, plan, encrypted, binding);
            }
        }
    }

    /// <summary>
    /// Decrypts what <paramref name="selectors"/> select in <paramref name="document"/> into <paramref name="replacements"/>
    /// (cell, plaintext and selector; applied by the caller once everything succeeded).
    /// </summary>
    /// <returns>The selectors of which at least one value was decrypted, in <c>_ep</c> order.</returns>
    /// <exception cref="EncryptionException">A selected value is not a string, or not valid or not authentic.</exception>
    public static IEnumerable<string> Decrypt(JObject document, DocumentSelectors selectors, DataEncryptionKey key, string keyId, int maxDepth, List<(JToken Cell, JToken Plain, string Path)> replacements, Func<string, CellBinding> bindingOf)
    {
        bool[] decrypted = new bool[selectors.Texts.Length];
        var walk = new DecryptWalk(selectors, key, keyId, maxDepth, replacements, decrypted, bindingOf);
        SelectorNode root = selectors.Root;
        for (int i = 0; i < root.ChildCount; i++)
        {
            if (document.TryGetValue(root.GetChildName(i), out JToken? value))
            {
                Decrypt(value, root.GetChild(i), level: 1, walk);
            }
        }

        return selectors.Texts.Where((_, i) => decrypted[i]);
    }

    private static void Decrypt(JToken value, SelectorNode node, int level, in DecryptWalk walk)
    {
        if (node.IsLeaf)
        {
            if (value.Type == JTokenType.Null)
            {
                return;
            }

            string path = walk.Selectors.Texts[node.RuleIndex];
            if (value.Type != JTokenType.String)
            {
                JsonErrors.ThrowNotAnEncryptedString(path, walk.KeyId);
            }

            // The plaintext's own depth limit is what is left below this value (a top-level value sits at level 1).
            walk.Replacements.Add((value, JTokenValueCodec.Decrypt((string)value!, walk.Key, walk.KeyId, path, walk.MaxDepth - (level - 1), walk.BindingOf(path)), path));
            walk.Decrypted[node.RuleIndex] = true;
            return;
        }

        if (value is JObject obj && node.ChildCount > 0)
        {
            foreach (JProperty property in obj.Properties())
            {
                int child = node.FindChild(property.Name);
                if (child >= 0)
                {
                    Decrypt(property.Value, node.GetChild(child), level + 1, walk);
                }
            }
        }
        else if (value is JArray array && node.Elements is { } elements)
        {
            foreach (JToken element in array)
            {
                Decrypt(element, elements, level + 1, walk);
            }
        }
    }

    // What the decryption walk of one document carries unchanged: the selectors (names for errors), the key and its
    // id, the depth limit, and where it collects the replacements, the selectors decrypted and each path's binding.
    private readonly struct DecryptWalk(
        DocumentSelectors selectors,
        DataEncryptionKey key,
        string keyId,
        int maxDepth,
        List<(JToken Cell, JToken Plain, string Path)> replacements,
        bool[] decrypted,
        Func<string, CellBinding> bindingOf)
    {
        public DocumentSelectors Selectors { get; } = selectors;

        [DebuggerBrowsable(DebuggerBrowsableState.Never)]
        public DataEncryptionKey Key { get; } = key;

        public string KeyId { get; } = keyId;

        public int MaxDepth { get; } = maxDepth;

        public List<(JToken Cell, JToken Plain, string Path)> Replacements { get; } = replacements;

        public bool[] Decrypted { get; } = decrypted;

        public Func<string, CellBinding> BindingOf { get; } = bindingOf;
    }
}
