using System.Text;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Json.JTokens;

/// <summary>
/// The Newtonsoft processor's read check of a compiled container policy (<see cref="PolicyRuleSet"/>); same rules
/// and order as <c>PolicyScan</c>: a value at a policy path (name equal ignoring case) that <c>_ep</c> does not list
/// is ciphertext whose metadata was lost when shaped like a format 3 value, else plaintext.
/// </summary>
internal static class JPolicyCheck
{
    /// <summary>Checks one parsed document whose metadata is <paramref name="envelope"/> (null when not encrypted).</summary>
    /// <exception cref="EncryptionException">
    /// <see cref="EncryptionErrorKind.KeyNotAccepted"/>, <see cref="EncryptionErrorKind.PlaintextForbidden"/>,
    /// <see cref="EncryptionErrorKind.UnlistedCipherText"/> or <see cref="EncryptionErrorKind.InvalidCipherText"/>.
    /// </exception>
    public static void Check(JObject document, JEnvelope? envelope, PolicyRuleSet rules, Encryptor encryptor, bool nameDocument)
    {
        if (envelope is not null)
        {
            PolicyReadCheck.CheckKey(rules, envelope.KeyId);
            if (envelope.Format != EnvelopeFormat.Extended && rules.Plan.IsExtendedFormat && rules.ForbidsPlaintext)
            {
                PolicyReadCheck.ThrowDowngrade(rules, envelope.Format, Id(document, nameDocument));
            }

            if (!envelope.Bound && rules.Binds && rules.ForbidsPlaintext)
            {
                PolicyReadCheck.ThrowBindingDowngrade(rules, Id(document, nameDocument));
            }

            if (envelope.Commitment is null && rules.Commits && rules.ForbidsPlaintext)
            {
                PolicyReadCheck.ThrowCommitmentDowngrade(rules, Id(document, nameDocument));
            }
        }

        PathRule? plaintext = null;
        bool extended = envelope is { Format: EnvelopeFormat.Extended };
        foreach (JProperty property in document.Properties())
        {
            if (property.Value.Type == JTokenType.Null || property.Name == EncryptionEnvelope.PropertyName
                || (extended && property.Name == EncryptionEnvelope.AnchorName))
            {
                continue;
            }

            int i = rules.FindAtPath(property.Name);
            if (i < 0)
            {
                continue;
            }

            PathRule rule = rules[i];
            string listedAs = string.Equals(property.Name, rule.PropertyName, StringComparison.Ordinal) ? rule.Text : "/" + property.Name;
            if (envelope is { Format: EnvelopeFormat.PerProperty or EnvelopeFormat.Extended } && envelope.Paths.Contains(listedAs))
            {
                continue;
            }

            ThrowIfCellShaped(property.Value, rules, encryptor, rule, document, nameDocument);
            plaintext ??= rule;
        }

        // The nested selectors' positions: a cell-shaped value there throws now, plaintext is reported after the top level's.
        SelectorNode policy = rules.Plan.NestedSelectors;
        PathRule? nestedPlaintext = null;
        foreach (JProperty property in policy.ChildCount == 0 ? [] : document.Properties())
        {
            if (property.Name == EncryptionEnvelope.PropertyName || (extended && property.Name == EncryptionEnvelope.AnchorName))
            {
                continue;
            }

            int child = policy.FindChild(property.Name);
            int variant = child < 0 ? policy.FindChildIgnoringCase(property.Name) : -1;
            if (child < 0 && variant < 0)
            {
                continue;
            }

            SelectorNode? listed = child >= 0 && envelope?.Selectors?.Root is { } root && root.FindChild(property.Name) is int l && l >= 0 ? root.GetChild(l) : null;
            Walk(property.Value, policy.GetChild(child >= 0 ? child : variant), listed, rules, encryptor, document, nameDocument, ref nestedPlaintext);
        }

        plaintext ??= nestedPlaintext;
        if (plaintext is not null)
        {
            PolicyReadCheck.OnPlaintext(rules, plaintext.Text, Id(document, nameDocument));
        }
    }

    private static void Walk(JToken value, SelectorNode policy, SelectorNode? listed, PolicyRuleSet rules, Encryptor encryptor, JObject document, bool nameDocument, ref PathRule? plaintext)
    {
        if (policy.IsLeaf)
        {
            if (value.Type != JTokenType.Null && listed is not { IsLeaf: true })
            {
                PathRule rule = rules[policy.RuleIndex];
                ThrowIfCellShaped(value, rules, encryptor, rule, document, nameDocument);
                plaintext ??= rule;
            }

            return;
        }

        if (value is JObject obj && policy.ChildCount > 0)
        {
            foreach (JProperty property in obj.Properties())
            {
                int child = policy.FindChild(property.Name);
                int variant = child < 0 ? policy.FindChildIgnoringCase(property.Name) : -1;
                if (child >= 0 || variant >= 0)
                {
                    // A case variant is never what the metadata lists: whatever it holds at a policy position counts.
                    SelectorNode? next = child >= 0 && listed is not null && listed.FindChild(property.Name) is int l && l >= 0 ? listed.GetChild(l) : null;
                    Walk(property.Value, policy.GetChild(child >= 0 ? child : variant), next, rules, encryptor, document, nameDocument, ref plaintext);
                }
            }
        }
        else if (value is JArray array && policy.Elements is { } elements)
        {
            foreach (JToken element in array)
            {
                Walk(element, elements, listed?.Elements, rules, encryptor, document, nameDocument, ref plaintext);
            }
        }
    }

    private static void ThrowIfCellShaped(JToken value, PolicyRuleSet rules, Encryptor encryptor, PathRule rule, JObject document, bool nameDocument)
    {
        if (value is not JValue { Type: JTokenType.String } text)
        {
            return;
        }

        byte[] base64 = Encoding.UTF8.GetBytes((string)text!);
        try
        {
            if (EncryptedCell.IsCellShaped(base64))
            {
                PolicyReadCheck.OnCellShapedValue(rules, encryptor, rule.Text, base64, Id(document, nameDocument));
            }
        }
        finally
        {
            // It may be plaintext.
            Array.Clear(base64);
        }
    }

    private static string? Id(JObject document, bool nameDocument) =>
        nameDocument && document["id"] is JValue { Type: JTokenType.String } idValue ? (string?)idValue : null;
}
