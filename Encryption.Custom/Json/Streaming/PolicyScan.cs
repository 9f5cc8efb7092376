using System.Buffers;
using System.Text.Json;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// The stream processor's read check of a compiled container policy (<see cref="PolicyRuleSet"/>), made from what
/// the scan already recorded (top-level names, value types, the <c>_ep</c> match of each property): no second
/// pass, and no allocation unless the document is refused.
/// </summary>
/// <remarks>
/// A value is "at a policy path" when its name equals the path's name ignoring case (as serializers bind it); such a
/// value that <c>_ep</c> does not list is either ciphertext whose metadata was lost (shaped like a format 3 value) or
/// plaintext. Same rules and order as <c>JPolicyCheck</c>.
/// </remarks>
internal static class PolicyScan
{
    /// <summary>Checks one scanned (and prepared, when <paramref name="encrypted"/>) document.</summary>
    /// <param name="input">The whole input.</param>
    /// <param name="scan">The scan.</param>
    /// <param name="document">The document's record.</param>
    /// <param name="encrypted">Whether the document carries metadata (it was prepared).</param>
    /// <param name="rules">The container's compiled policy.</param>
    /// <param name="encryptor">Supplies the policy's keys, to tell lost-metadata ciphertext from a tampered value.</param>
    /// <param name="nameDocument">Whether the error names the document (not in feeds: the page wrapper does).</param>
    /// <exception cref="EncryptionException">
    /// <see cref="EncryptionErrorKind.KeyNotAccepted"/>, <see cref="EncryptionErrorKind.PlaintextForbidden"/>,
    /// <see cref="EncryptionErrorKind.UnlistedCipherText"/> or <see cref="EncryptionErrorKind.InvalidCipherText"/>.
    /// </exception>
    public static void Check(ReadOnlySpan<byte> input, DecryptionScan scan, in DocumentRecord document, bool encrypted, PolicyRuleSet rules, Encryptor encryptor, bool nameDocument)
    {
        if (encrypted)
        {
            PolicyReadCheck.CheckKey(rules, document.KeyId!);
        }

        if (encrypted && document.Format != EnvelopeFormat.Extended && rules.Plan.IsExtendedFormat && rules.ForbidsPlaintext)
        {
            PolicyReadCheck.ThrowDowngrade(rules, document.Format, nameDocument ? FeedPageSession.ReadId(input, scan, document) : null);
        }

        if (encrypted && rules.Binds && !document.Bound && rules.ForbidsPlaintext)
        {
            PolicyReadCheck.ThrowBindingDowngrade(rules, nameDocument ? FeedPageSession.ReadId(input, scan, document) : null);
        }

        if (encrypted && rules.Commits && !document.Committed && rules.ForbidsPlaintext)
        {
            PolicyReadCheck.ThrowCommitmentDowngrade(rules, nameDocument ? FeedPageSession.ReadId(input, scan, document) : null);
        }

        if (encrypted && rules.Plan.HasQueryTokens && !document.HasQueryTokens && rules.ForbidsPlaintext)
        {
            PolicyReadCheck.ThrowQueryTokenDowngrade(rules, nameDocument ? FeedPageSession.ReadId(input, scan, document) : null);
        }

        // No _ei but format 101's anchor: the envelope metadata was dropped (PolicyReadCheck.CreateCellError).
        bool envelopeMissing = !encrypted && document.AnchorProperty >= 0;
        int index = FindUnlisted(input, scan, document, rules, out int property, out bool cellShaped);
        if (cellShaped)
        {
            ref readonly PropertyRecord value = ref scan.Properties[property];
            throw CreateCellError(input[value.ValueStart..value.ValueEnd], value.ValueEscaped, rules, encryptor, rules[index].Text, Id(input, scan, document, nameDocument), envelopeMissing);
        }

        // The nested selectors' positions, walked only when the policy has some.
        NestedPolicyScan.Finding nested = NestedPolicyScan.FindUnlisted(input, scan, document, rules);
        if (nested.CellShaped)
        {
            throw CreateCellError(input[nested.Start..nested.End], nested.Escaped, rules, encryptor, rules[nested.Rule].Text, Id(input, scan, document, nameDocument), envelopeMissing);
        }

        if (index >= 0 || nested.Rule >= 0)
        {
            PolicyReadCheck.OnPlaintext(rules, rules[index >= 0 ? index : nested.Rule].Text, Id(input, scan, document, nameDocument));
        }
    }

    private static string? Id(ReadOnlySpan<byte> input, DecryptionScan scan, in DocumentRecord document, bool nameDocument) =>
        nameDocument ? FeedPageSession.ReadId(input, scan, document) : null;

    /// <summary>
    /// The error for a value shaped like ciphertext that the metadata does not list (found by <see cref="FindUnlisted"/>):
    /// which of the policy's keys authenticates it decides the kind (<see cref="PolicyReadCheck.CreateCellError"/>).
    /// </summary>
    internal static EncryptionException CreateCellError(ReadOnlySpan<byte> token, bool escaped, PolicyRuleSet rules, Encryptor encryptor, string path, string? id, bool envelopeMissing = false)
    {
        byte[]? unescaped = null;
        try
        {
            ReadOnlySpan<byte> base64 = token[1..^1];
            if (escaped)
            {
                unescaped = ArrayPool<byte>.Shared.Rent(token.Length);
                base64 = unescaped.AsSpan(0, JsonStringUnescaper.Unescape(token, unescaped));
            }

            Span<byte> idText = stackalloc byte[IdCellText.StandardScratchLength];
            ReadOnlySpan<byte> text = IdCellText.ForCodec(path, base64, idText);

            string? keyId = EncryptedCell.FindAuthenticatingKey(encryptor, rules.ReadableKeyIds, rules.EncryptionAlgorithm, text, out string? unavailable);
            return PolicyReadCheck.CreateCellError(rules, path, id, keyId, unavailable, envelopeMissing);
        }
        finally
        {
            if (unescaped is not null)
            {
                ArrayPool<byte>.Shared.Return(unescaped);
            }
        }
    }

    /// <summary>
    /// The first property (in document order) at a policy path (its name equal to a path's ignoring case) that
    /// <c>_ep</c> does not list and whose value is not null; a value shaped like ciphertext wins over plaintext
    /// found earlier. Returns the rule's index, or -1.
    /// </summary>
    internal static int FindUnlisted(ReadOnlySpan<byte> input, DecryptionScan scan, in DocumentRecord document, PolicyRuleSet rules, out int propertyIndex, out bool cellShaped)
    {
        propertyIndex = -1;
        cellShaped = false;
        int found = -1;
        PropertyRecord[] properties = scan.Properties;
        int end = document.FirstProperty + document.PropertyCount;
        for (int i = document.FirstProperty; i < end; i++)
        {
            ref readonly PropertyRecord property = ref properties[i];
            if (property.PathIndex >= 0 || property.ValueType == JsonTokenType.Null || i == document.EnvelopeProperty
                || (i == document.AnchorProperty && document.Format == EnvelopeFormat.Extended))
            {
                continue;
            }

            int index = rules.FindAtPath(scan.GetName(input, property));
            if (index < 0)
            {
                continue;
            }

            if (property.ValueType == JsonTokenType.String && IsCellShaped(input, property, scan.GetName(input, property)))
            {
                propertyIndex = i;
                cellShaped = true;
                return index;
            }

            if (found < 0)
            {
                found = index;
                propertyIndex = i;
            }
        }

        return found;
    }

    private static bool IsCellShaped(ReadOnlySpan<byte> input, in PropertyRecord property, ReadOnlySpan<byte> name)
    {
        if (IdCellText.IsIdName(name))
        {
            // The id's stored alphabet (IdCellText); an escaped id is never one this library wrote.
            Span<byte> idText = stackalloc byte[IdCellText.StandardScratchLength];
            return !property.ValueEscaped && EncryptedCell.IsCellShaped(IdCellText.ToStandard(input[(property.ValueStart + 1)..(property.ValueEnd - 1)], idText));
        }

        if (!property.ValueEscaped)
        {
            return EncryptedCell.IsCellShaped(input[(property.ValueStart + 1)..(property.ValueEnd - 1)]);
        }

        ReadOnlySpan<byte> token = input[property.ValueStart..property.ValueEnd];
        byte[] unescaped = ArrayPool<byte>.Shared.Rent(token.Length);
        try
        {
            return EncryptedCell.IsCellShaped(unescaped.AsSpan(0, JsonStringUnescaper.Unescape(token, unescaped)));
        }
        finally
        {
            Array.Clear(unescaped);
            ArrayPool<byte>.Shared.Return(unescaped);
        }
    }
}
