using System.Text;
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
        }

        PathRule? plaintext = null;
        foreach (JProperty property in document.Properties())
        {
            if (property.Value.Type == JTokenType.Null || property.Name == EncryptionEnvelope.PropertyName)
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
            if (envelope is { Format: EnvelopeFormat.PerProperty } && envelope.Paths.Contains(listedAs))
            {
                continue;
            }

            if (property.Value is JValue { Type: JTokenType.String } value)
            {
                byte[] base64 = Encoding.UTF8.GetBytes((string)value!);
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

            plaintext ??= rule;
        }

        if (plaintext is not null)
        {
            PolicyReadCheck.OnPlaintext(rules, plaintext.Text, Id(document, nameDocument));
        }
    }

    private static string? Id(JObject document, bool nameDocument) =>
        nameDocument && document["id"] is JValue { Type: JTokenType.String } idValue ? (string?)idValue : null;
}
