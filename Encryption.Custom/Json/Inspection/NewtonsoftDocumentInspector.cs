using System.Text;
using Encryption.Custom.Json.Errors;
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
            bool tokenMember = root.ContainsKey(Tokens.QueryTokenRule.MemberName);
            if (envelope is null)
            {
                return new DocumentInspection { State = InspectedState.Plaintext, Id = id, Unlisted = unlisted, HasQueryTokenMember = tokenMember, EnvelopeMissing = root.ContainsKey(EncryptionEnvelope.AnchorName) };
            }

            bool legacy = envelope.Format == EnvelopeFormat.LegacyBlob;
            DataEncryptionKey? key = legacy ? null : request.Keys?.Invoke(envelope.KeyId);

            // Query tokens: JEnvelope.Read has made sure a document requiring them has a '_q' object. Its text as the
            // Newtonsoft processor's strict reader checks it (JQueryTokens.Verify).
            byte[] members = envelope.HasQueryTokens ? Encoding.UTF8.GetBytes(root[Tokens.QueryTokenRule.MemberName]!.ToString(Newtonsoft.Json.Formatting.None)) : [];
            (IReadOnlyList<string>? names, EncryptionException? tokenError) = envelope.HasQueryTokens ? InspectedQueryTokens.Read(members, id) : (null, null);
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

                    byte[] base64 = Encoding.UTF8.GetBytes((string)value!);
                    type = CellTypes.Classify(base64, path, key, envelope.KeyId, out EncryptionException? error);
                    typeError ??= error;
                }

                paths.Add(new InspectedPath(path, Nested: false, type));
            }

            DocumentInspection inspection = DocumentInspection.WithEnvelope(envelope.Format, envelope.KeyId, envelope.Algorithm, envelope.Bound, paths, envelope.Selectors) with
            {
                Unlisted = unlisted,
                Id = id,
                TypeError = typeError,
                HasQueryTokenFeature = envelope.HasQueryTokens,
                HasQueryTokenMember = tokenMember,
                QueryTokenMembers = names,
                QueryTokenError = tokenError,
            };
            return InspectedQueryTokens.WithTokens(inspection, document, request.Rules, key, members, request.MaxDepth);
        }
        catch (EncryptionException exception)
        {
            return DocumentInspection.Unreadable(exception);
        }
    }

    // The first cell-shaped unlisted value, else the first plaintext one (JPolicyCheck's order).
    private static UnlistedValue? FindUnlisted(JObject document, JEnvelope? envelope, PolicyRuleSet rules)
    {
        UnlistedValue? plaintext = null;
        foreach ((JToken value, PathRule rule) in JPolicyPositions.Unlisted(document, envelope, rules))
        {
            if (CellShaped(value, rule.Text) is { } cell)
            {
                return new UnlistedValue(rule.Text, true, cell);
            }

            plaintext ??= new UnlistedValue(rule.Text, false, null);
        }

        return plaintext;
    }

    private static byte[]? CellShaped(JToken value, string path)
    {
        if (value is not JValue { Type: JTokenType.String } text)
        {
            return null;
        }

        byte[] base64 = Encoding.UTF8.GetBytes(IdCellText.ForCodec(path, (string)text!));
        if (EncryptedCell.IsCellShaped(base64))
        {
            return base64;
        }

        // It may be plaintext.
        Array.Clear(base64);
        return null;
    }
}
