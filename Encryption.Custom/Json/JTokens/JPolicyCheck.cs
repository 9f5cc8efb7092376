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

            if (!envelope.HasQueryTokens && rules.Plan.HasQueryTokens && rules.ForbidsPlaintext)
            {
                PolicyReadCheck.ThrowQueryTokenDowngrade(rules, Id(document, nameDocument));
            }
        }

        // A cell-shaped value at an unlisted position throws at once; the first plaintext one is reported after the walk.
        PathRule? plaintext = null;
        bool envelopeMissing = envelope is null && document.ContainsKey(EncryptionEnvelope.AnchorName); // as PolicyScan
        foreach ((JToken value, PathRule rule) in JPolicyPositions.Unlisted(document, envelope, rules))
        {
            ThrowIfCellShaped(value, rules, encryptor, rule, document, nameDocument, envelopeMissing);
            plaintext ??= rule;
        }

        if (plaintext is not null)
        {
            PolicyReadCheck.OnPlaintext(rules, plaintext.Text, Id(document, nameDocument));
        }
    }

    private static void ThrowIfCellShaped(JToken value, PolicyRuleSet rules, Encryptor encryptor, PathRule rule, JObject document, bool nameDocument, bool envelopeMissing)
    {
        if (value is not JValue { Type: JTokenType.String } text)
        {
            return;
        }

        byte[] base64 = Encoding.UTF8.GetBytes(IdCellText.ForCodec(rule.Text, (string)text!));
        try
        {
            if (EncryptedCell.IsCellShaped(base64))
            {
                PolicyReadCheck.OnCellShapedValue(rules, encryptor, rule.Text, base64, Id(document, nameDocument), envelopeMissing);
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
