using System.Buffers.Text;
using System.Security.Cryptography;
using System.Text;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Tokens;
using Encryption.Custom.Json.Values;
using Encryption.Custom.Json.WireFormat;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Json.JTokens;

/// <summary>
/// Query tokens for the Newtonsoft processor (docs/wire-format.md "Query tokens"): computed from a value as its cell
/// holds it (marker and plaintext bytes, the stream processor's mapping), so both processors write and verify the
/// same tokens.
/// </summary>
internal static class JQueryTokens
{
    /// <summary>The <c>_q</c> object of a plaintext document about to be encrypted by <paramref name="plan"/>, or <see langword="null"/> when the plan has no token path.</summary>
    public static JObject? Compute(JObject document, DataEncryptionKey key, EncryptionPlan plan)
    {
        if (!plan.HasQueryTokens)
        {
            return null;
        }

        // Top-level paths, then nested selectors: the plan's order, which the stream processor writes too.
        var members = new JObject();
        for (int i = 0; i < plan.PathCount; i++)
        {
            if (plan.GetQueryTokens(i) is { } rule && ValueAt(document, plan.GetRulePath(i)) is { } value && value.Type != JTokenType.Null)
            {
                // A number no cell can hold is refused as the value codec refuses it, before its tokens are asked for.
                if (!IsRepresentable(value))
                {
                    JsonErrors.ThrowNumberNotRepresentable(rule.Path);
                }

                byte[] tokens = Tokens(key, rule, value);
                var array = new JArray();
                for (int slot = 0; slot < rule.TokenCount; slot++)
                {
                    array.Add(Base64Url.EncodeToString(tokens.AsSpan(slot * rule.TokenLength, rule.TokenLength)));
                }

                members[rule.Path] = array;
            }
        }

        return members;
    }

    /// <summary>
    /// The one value <paramref name="path"/> names in <paramref name="document"/> (a token path: top-level, or a nested
    /// selector outside arrays), or <see langword="null"/> when an object on the way is missing or is not an object,
    /// as the processors' selector walks find it: names compared exactly.
    /// </summary>
    public static JToken? ValueAt(JObject document, RulePath path)
    {
        JToken? current = document;
        foreach (string segment in path.Segments)
        {
            if (current is not JObject parent || !parent.TryGetValue(segment, out current))
            {
                return null;
            }
        }

        return current;
    }

    /// <summary>
    /// A strict reader's check: <paramref name="stored"/> (the document's <c>_q</c>) holds exactly the tokens of the
    /// decrypted values <paramref name="decrypted"/> (path, top-level or nested, and value) under <paramref name="rules"/>.
    /// </summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.CellBindingMismatch"/>, naming the path.</exception>
    public static void Verify(JToken stored, IEnumerable<KeyValuePair<string, JToken>> decrypted, DataEncryptionKey key, PolicyRuleSet rules, string? id)
    {
        byte[] members = Encoding.UTF8.GetBytes(stored.ToString(Newtonsoft.Json.Formatting.None));
        var values = new List<(QueryTokenRule Rule, JToken Value)>();
        ulong encrypted = 0;
        foreach (KeyValuePair<string, JToken> pair in decrypted)
        {
            int index = rules.Plan.IndexOf(pair.Key);
            if (index is >= 0 and < 64 && rules.Plan.GetQueryTokens(index) is { } rule && pair.Value.Type != JTokenType.Null)
            {
                encrypted |= 1UL << index;
                values.Add((rule, pair.Value));
            }
        }

        QueryTokenCheck.CheckMembers(members, rules.QueryTokens!, encrypted, id);
        foreach ((QueryTokenRule rule, JToken value) in values)
        {
            (TypeMarker marker, byte[] plainText) = PlainText(value, rule.Path);
            try
            {
                QueryTokenCheck.Verify(key, rule, marker, plainText, QueryTokenCheck.FindMember(members, rule.PathUtf8), id);
            }
            finally
            {
                CryptographicOperations.ZeroMemory(plainText);
            }
        }
    }

    private static bool IsRepresentable(JToken value) => value.Type switch
    {
        JTokenType.Integer => ((JValue)value).Value is long,
        JTokenType.Float => ((JValue)value).Value is double number && double.IsFinite(number),
        _ => true,
    };

    private static byte[] Tokens(DataEncryptionKey key, QueryTokenRule rule, JToken value)
    {
        byte[] tokens = new byte[rule.TokenCount * rule.TokenLength];
        (TypeMarker marker, byte[] plainText) = PlainText(value, rule.Path);
        try
        {
            QueryTokens.ComputeFromPlainText(key, rule, marker, plainText, tokens);
            return tokens;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(plainText);
        }
    }

    // The value as its cell holds it, by the one mapping both processors' cells use (PlainValue): strings as strict
    // UTF-8, integers and doubles as 8 bytes little-endian, booleans by their marker; objects and arrays get a marker
    // the token computation refuses for every declaration.
    private static (TypeMarker Marker, byte[] PlainText) PlainText(JToken value, string path)
    {
        byte[] scalar = new byte[ScalarEncoding.Length];
        switch (value.Type)
        {
            case JTokenType.String:
                string text = (string)value!;
                byte[] utf8 = new byte[PlainValue.GetMaxStringLength(text)];
                try
                {
                    return (TypeMarker.String, utf8.AsSpan(0, PlainValue.String(text, utf8, path)).ToArray());
                }
                finally
                {
                    CryptographicOperations.ZeroMemory(utf8);
                }

            case JTokenType.Integer when ((JValue)value).Value is long integer:
                return (PlainValue.Integer(integer, scalar), scalar);
            case JTokenType.Float when ((JValue)value).Value is double number:
                return (PlainValue.Double(number, scalar, path), scalar);
            case JTokenType.Boolean:
                return (PlainValue.Boolean((bool)value, scalar), scalar);
            default:
                return (TypeMarker.Object, scalar);
        }
    }
}
