using System.Buffers;
using System.Text;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Json.Inspection;

/// <summary>
/// The stream processor's inspection: its scan and envelope reader (the first two steps of its decryption), its
/// policy scans for unlisted values, and the cells' bytes where they lie in the input.
/// </summary>
internal sealed class StreamDocumentInspector : DocumentInspector
{
    public static StreamDocumentInspector Instance { get; } = new();

    public override DocumentInspection Inspect(ReadOnlySpan<byte> document, in InspectionRequest request)
    {
        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            DocumentScanner.ScanDocument(document, scan, request.MaxDepth);
            ref DocumentRecord record = ref scan.Documents[0];
            bool encrypted = EnvelopeReader.Prepare(document, scan, ref record);
            string? id = FeedPageSession.ReadId(document, scan, record);
            UnlistedValue? unlisted = request.Rules is null ? null : FindUnlisted(document, scan, record, request);
            if (!encrypted)
            {
                return new DocumentInspection { State = InspectedState.Plaintext, Id = id, Unlisted = unlisted, HasQueryTokenMember = record.QueryTokensProperty >= 0, EnvelopeMissing = record.AnchorProperty >= 0 };
            }

            DataEncryptionKey? key = record.Format == EnvelopeFormat.LegacyBlob ? null : request.Keys?.Invoke(record.KeyId!);

            // Query tokens: the envelope reader has made sure a document requiring them has exactly one '_q'.
            bool tokens = record.HasQueryTokens;
            ReadOnlySpan<byte> members = tokens ? document[scan.Properties[record.QueryTokensProperty].ValueStart..scan.Properties[record.QueryTokensProperty].ValueEnd] : default;
            (IReadOnlyList<string>? names, EncryptionException? tokenError) = tokens ? InspectedQueryTokens.Read(members, id) : (null, null);
            var paths = new List<InspectedPath>(scan.PathCount);
            EncryptionException? typeError = null;
            for (int i = 0; i < scan.PathCount; i++)
            {
                ref readonly PathRecord path = ref scan.Paths[i];
                string text = "/" + Encoding.UTF8.GetString(scan.GetPathName(path));
                InspectedCellType type = InspectedCellType.Absent;
                if (record.Format != EnvelopeFormat.LegacyBlob && path.PropertyIndex >= 0)
                {
                    type = Classify(document, scan.Properties[path.PropertyIndex], text, key, record.KeyId!, out EncryptionException? error);
                    typeError ??= error;
                }

                paths.Add(new InspectedPath(text, Nested: false, type));
            }

            DocumentInspection inspection = DocumentInspection.WithEnvelope(record.Format, record.KeyId, record.Algorithm, record.Bound, paths, record.Selectors) with
            {
                Unlisted = unlisted,
                Id = id,
                TypeError = typeError,
                HasQueryTokenFeature = tokens,
                HasQueryTokenMember = record.QueryTokensProperty >= 0,
                QueryTokenMembers = names,
                QueryTokenError = tokenError,
            };
            return InspectedQueryTokens.WithTokens(inspection, document, request.Rules, key, members, request.MaxDepth);
        }
        catch (EncryptionException exception)
        {
            return DocumentInspection.Unreadable(exception);
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }

    // The read check's order (PolicyScan.Check): a cell-shaped value at the top level, then nested; else plaintext, top level first.
    private static UnlistedValue? FindUnlisted(ReadOnlySpan<byte> input, DecryptionScan scan, in DocumentRecord record, in InspectionRequest request)
    {
        var rules = request.Rules!;
        int index = PolicyScan.FindUnlisted(input, scan, record, rules, out int property, out bool cellShaped);
        if (cellShaped)
        {
            ref readonly PropertyRecord value = ref scan.Properties[property];
            // The codec's form (the id's stored alphabet turned back, IdCellText), as the Newtonsoft inspector gives it.
            Span<byte> idText = stackalloc byte[IdCellText.StandardScratchLength];
            byte[] stored = Unescape(input[value.ValueStart..value.ValueEnd], value.ValueEscaped);
            return new UnlistedValue(rules[index].Text, true, IdCellText.ForCodec(rules[index].Text, stored, idText).ToArray());
        }

        NestedPolicyScan.Finding nested = NestedPolicyScan.FindUnlisted(input, scan, record, rules);
        if (nested.CellShaped)
        {
            return new UnlistedValue(rules[nested.Rule].Text, true, Unescape(input[nested.Start..nested.End], nested.Escaped));
        }

        return index >= 0 ? new UnlistedValue(rules[index].Text, false, null)
            : nested.Rule >= 0 ? new UnlistedValue(rules[nested.Rule].Text, false, null)
            : null;
    }

    private static InspectedCellType Classify(ReadOnlySpan<byte> input, in PropertyRecord property, string path, DataEncryptionKey? key, string keyId, out EncryptionException? error)
    {
        ReadOnlySpan<byte> token = input[property.ValueStart..property.ValueEnd];
        if (!property.ValueEscaped)
        {
            return CellTypes.Classify(token[1..^1], path, key, keyId, out error);
        }

        // Some writers escape '+' and '/'; base64 is public, so the copy needs no wiping.
        byte[] unescaped = ArrayPool<byte>.Shared.Rent(token.Length);
        try
        {
            return CellTypes.Classify(unescaped.AsSpan(0, JsonStringUnescaper.Unescape(token, unescaped)), path, key, keyId, out error);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(unescaped);
        }
    }

    // A cell-shaped token's content (public ciphertext).
    private static byte[] Unescape(ReadOnlySpan<byte> token, bool escaped)
    {
        if (!escaped)
        {
            return token[1..^1].ToArray();
        }

        byte[] unescaped = new byte[token.Length];
        return unescaped[..JsonStringUnescaper.Unescape(token, unescaped)];
    }
}
