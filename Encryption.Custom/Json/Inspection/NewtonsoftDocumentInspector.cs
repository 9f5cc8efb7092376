using System.Text;
using Encryption.Custom.Json.JTokens;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Json.Inspection;

/// <summary>
/// The Newtonsoft processor's inspection: the document parsed as its decryption parses it, its envelope reader
/// (<see cref="JEnvelope"/>), and its read check's walk of the policy's positions (<see cref="JPolicyCheck"/>'s order),
/// answering instead of throwing.
/// </summary>
internal sealed class NewtonsoftDocumentInspector : DocumentInspector
{
    public static NewtonsoftDocumentInspector Instance { get; } = new();

    public override DocumentInspection Inspect(ReadOnlySpan<byte> document, in InspectionRequest request)
    {
        try
        {
            JObject root = JObjectReader.ParseObject(document, request.MaxDepth);
            JEnvelope? envelope = JEnvelope.Read(root);
            string? id = root["id"] is JValue { Type: JTokenType.String } idValue ? (string?)idValue : null;
            UnlistedValue? unlisted = request.Rules is null ? null : FindUnlisted(root, envelope, request.Rules);
            if (envelope is null)
            {
                return new DocumentInspection { State = InspectedState.Plaintext, Id = id, Unlisted = unlisted };
            }

            bool legacy = envelope.Format == EnvelopeFormat.LegacyBlob;
            DataEncryptionKey? key = legacy ? null : request.Keys?.Invoke(envelope.KeyId);
            var paths = new List<InspectedPath>(envelope.Paths.Count);
            EncryptionException? typeError = null;
            foreach (string path in envelope.Paths)
            {
                InspectedCellType type = InspectedCellType.Absent;
                if (!legacy && root.TryGetValue(path[1..], out JToken? value) && value.Type != JTokenType.Null)
                {
                    if (value.Type != JTokenType.String)
                    {
                        // As the stream reader refuses it while matching paths.
                        JsonErrors.ThrowNotAnEncryptedString(path, envelope.KeyId);
                    }

                    type = CellTypes.Classify(Encoding.UTF8.GetBytes((string)value!), path, key, envelope.KeyId, out EncryptionException? error);
                    typeError ??= error;
                }

                paths.Add(new InspectedPath(path, Nested: false, type));
            }

            foreach (string selector in envelope.Selectors?.Texts ?? [])
            {
                paths.Add(new InspectedPath(selector, Nested: true, InspectedCellType.Unchecked));
            }

            return new DocumentInspection
            {
                State = legacy ? InspectedState.LegacyBlob : InspectedState.Encrypted,
                FormatVersion = CellTypes.FormatVersion(envelope.Format),
                KeyId = envelope.KeyId,
                Algorithm = envelope.Algorithm,
                Bound = envelope.Bound,
                Paths = paths,
                Unlisted = unlisted,
                Id = id,
                TypeError = typeError,
            };
        }
        catch (EncryptionException exception)
        {
            return DocumentInspection.Unreadable(exception);
        }
    }

    private static UnlistedValue? FindUnlisted(JObject document, JEnvelope? envelope, PolicyRuleSet rules)
    {
        UnlistedValue? plaintext = null;
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

            if (CellShaped(property.Value) is { } cell)
            {
                return new UnlistedValue(rule.Text, true, cell);
            }

            plaintext ??= new UnlistedValue(rule.Text, false, null);
        }

        SelectorNode policy = rules.Plan.NestedSelectors;
        UnlistedValue? nestedPlaintext = null;
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
            if (Walk(property.Value, policy.GetChild(child >= 0 ? child : variant), listed, rules, ref nestedPlaintext) is { } cell)
            {
                return cell;
            }
        }

        return plaintext ?? nestedPlaintext;
    }

    // JPolicyCheck.Walk: returns the first cell-shaped unlisted value; records the first plaintext one.
    private static UnlistedValue? Walk(JToken value, SelectorNode policy, SelectorNode? listed, PolicyRuleSet rules, ref UnlistedValue? plaintext)
    {
        if (policy.IsLeaf)
        {
            if (value.Type != JTokenType.Null && listed is not { IsLeaf: true })
            {
                string text = rules[policy.RuleIndex].Text;
                if (CellShaped(value) is { } cell)
                {
                    return new UnlistedValue(text, true, cell);
                }

                plaintext ??= new UnlistedValue(text, false, null);
            }

            return null;
        }

        if (value is JObject obj && policy.ChildCount > 0)
        {
            foreach (JProperty property in obj.Properties())
            {
                int child = policy.FindChild(property.Name);
                int variant = child < 0 ? policy.FindChildIgnoringCase(property.Name) : -1;
                if (child >= 0 || variant >= 0)
                {
                    SelectorNode? next = child >= 0 && listed is not null && listed.FindChild(property.Name) is int l && l >= 0 ? listed.GetChild(l) : null;
                    if (Walk(property.Value, policy.GetChild(child >= 0 ? child : variant), next, rules, ref plaintext) is { } cell)
                    {
                        return cell;
                    }
                }
            }
        }
        else if (value is JArray array && policy.Elements is { } elements)
        {
            foreach (JToken element in array)
            {
                if (Walk(element, elements, listed?.Elements, rules, ref plaintext) is { } cell)
                {
                    return cell;
                }
            }
        }

        return null;
    }

    private static byte[]? CellShaped(JToken value)
    {
        if (value is not JValue { Type: JTokenType.String } text)
        {
            return null;
        }

        byte[] base64 = Encoding.UTF8.GetBytes((string)text!);
        if (EncryptedCell.IsCellShaped(base64))
        {
            return base64;
        }

        // It may be plaintext.
        Array.Clear(base64);
        return null;
    }
}
