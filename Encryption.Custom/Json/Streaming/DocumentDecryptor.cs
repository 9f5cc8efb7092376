using System.Buffers;
using System.Security.Cryptography;
using System.Text.Json;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;

namespace Encryption.Custom.Json.Streaming;

/// <summary>
/// The last step of decryption: writes a prepared document as verbatim copies of the bytes between the encrypted
/// values, the decrypted values, and nothing of <c>_ei</c> (with the separator next to it).
/// </summary>
/// <remarks>
/// The document's closing brace is the last thing written, so on failure the output holds an incomplete prefix
/// that must be discarded.
/// </remarks>
internal static class DocumentDecryptor
{
    private const string LegacyBlobPath = "/" + EncryptionEnvelope.PropertyName + "/" + EncryptionEnvelope.EncryptedDataName;

    /// <summary>Writes the decrypted form of the bytes from <c>document.Start</c> to <c>document.End</c>.</summary>
    /// <remarks>The container's policy (rules), if any: a bound document is read only with its binding target, and its deterministic paths are the ones whose cells are not bound.</remarks>
    /// <exception cref="EncryptionException">A value is not valid or not authentic, or a bound document is read without a binding target.</exception>
    public static void Write(
        ReadOnlySpan<byte> input,
        DecryptionScan scan,
        in DocumentRecord document,
        DataEncryptionKey key,
        IBufferWriter<byte> output,
        int maxDepth,
        PolicyRuleSet? rules = null)
    {
        PropertyRecord[] properties = scan.Properties;
        int first = document.FirstProperty;
        int end = first + document.PropertyCount;
        int envelope = document.EnvelopeProperty;
        int anchor = document.Format == EnvelopeFormat.Extended ? document.AnchorProperty : -1;
        string keyId = document.KeyId!;

        // A bound document: D from its own id and partition key, before any value (BindingScan).
        CellBinding binding = default;
        ulong unboundSelectors = 0;
        EncryptionPlan? policy = rules?.Plan;
        if (document.Bound)
        {
            BindingTarget target = policy?.Binding ?? throw DocumentBinding.NoBindingTarget(keyId);
            binding = BindingScan.Compute(input, scan, document, target, (document.Algorithm!, keyId));
            if (document.Committed)
            {
                // Before any value is decrypted (and before any output is written).
                CommitmentCheck.Verify(input, scan, document, key, binding, maxDepth);
            }
            string[] texts = document.Selectors?.Texts ?? [];
            for (int i = 0; i < texts.Length; i++)
            {
                int index = policy.IndexOf(texts[i]);
                if (index >= 0 && policy.IsDeterministic(index))
                {
                    unboundSelectors |= 1UL << i;
                }
            }
        }

        // Query tokens: removed from the output; a strict reader under a policy that declares them also verifies them,
        // the members here, each value's tokens as it is decrypted (docs/wire-format.md "Query tokens").
        int queryTokens = document.HasQueryTokens ? document.QueryTokensProperty : -1;
        bool verifyTokens = queryTokens >= 0 && rules is { ForbidsPlaintext: true } && rules.Plan.HasQueryTokens;
        ReadOnlySpan<byte> tokenMembers = queryTokens >= 0 ? input[properties[queryTokens].ValueStart..properties[queryTokens].ValueEnd] : default;
        if (verifyTokens)
        {
            Tokens.QueryTokenCheck.CheckMembers(tokenMembers, rules!.QueryTokens!, EncryptedTokenPaths(input, scan, document, policy!), id: null);
        }

        var selectorChecks = new SelectorChecks(binding, unboundSelectors, verifyTokens ? policy : null, tokenMembers);
        var values = new DecryptionOutput(key, keyId, output);
        int cursor = document.Start;
        bool keptBefore = false;
        ulong decryptedSelectors = 0;
        for (int i = first; i < end; i++)
        {
            if (i == envelope || i == anchor || i == queryTokens)
            {
                // Remove the property with one separator: the one before it when a kept property precedes it, else
                // the one after it (when there is one). Removed neighbours thus never share a separator.
                int removeStart = keptBefore ? properties[i - 1].ValueEnd : properties[i].NameStart;
                int removeEnd = keptBefore || i + 1 == end ? properties[i].ValueEnd : properties[i + 1].NameStart;
                output.Write(input[cursor..removeStart]);
                if (i == envelope && document.Format == EnvelopeFormat.LegacyBlob)
                {
                    WriteLegacyProperties(input, scan, document, values, maxDepth, separatorBefore: keptBefore, separatorAfter: !keptBefore && i + 1 < end);
                }

                cursor = removeEnd;
                continue;
            }

            keptBefore = true;
            ref readonly PropertyRecord property = ref properties[i];
            if (property.PathIndex >= 0)
            {
                output.Write(input[cursor..property.ValueStart]);
                Tokens.QueryTokenRule? tokenRule = verifyTokens && policy!.FindPath(scan.GetName(input, property)) is int at and >= 0 ? policy.GetQueryTokens(at) : null;
                ReadOnlySpan<byte> stored = tokenRule is null ? default : Tokens.QueryTokenCheck.FindMember(tokenMembers, tokenRule.PathUtf8);
                ValueDecryptor.Write(input, scan, property, values, maxDepth, new CellCheck(IsDeterministic(policy, scan.GetName(input, property)) ? default : binding, tokenRule, stored));
                cursor = property.ValueEnd;
            }
            else if (property.NestedChild >= 0)
            {
                output.Write(input[cursor..property.ValueStart]);
                decryptedSelectors |= NestedDecryptor.Write(input[property.ValueStart..property.ValueEnd], document.Selectors!, document.Selectors!.Root.GetChild(property.NestedChild), values, maxDepth, selectorChecks);
                cursor = property.ValueEnd;
            }
        }

        output.Write(input[cursor..document.End]);
        scan.DecryptedSelectors = decryptedSelectors;
    }

    // Bit i: the policy's rule i is a top-level token path whose value the document lists and holds (not null). A
    // nested token path's member is required where its value is decrypted (SelectorChecks: Verify refuses a value
    // without tokens), since which nested values a document holds is known only from that walk.
    private static ulong EncryptedTokenPaths(ReadOnlySpan<byte> input, DecryptionScan scan, in DocumentRecord document, EncryptionPlan policy)
    {
        ulong encrypted = 0;
        PropertyRecord[] properties = scan.Properties;
        for (int i = document.FirstProperty; i < document.FirstProperty + document.PropertyCount; i++)
        {
            if (properties[i].PathIndex >= 0 && properties[i].ValueType != JsonTokenType.Null
                && policy.FindPath(scan.GetName(input, properties[i])) is int index and >= 0 and < 64 && policy.GetQueryTokens(index) is not null)
            {
                encrypted |= 1UL << index;
            }
        }

        return encrypted;
    }

    // Deterministic cells are never bound: the policy says which top-level paths those are.
    private static bool IsDeterministic(EncryptionPlan? policy, ReadOnlySpan<byte> name)
    {
        int index = policy?.FindPath(name) ?? -1;
        return index >= 0 && policy!.IsDeterministic(index);
    }

    // Format 2: the encrypted properties come back from one blob and take the place of _ei.
    private static void WriteLegacyProperties(
        ReadOnlySpan<byte> input,
        DecryptionScan scan,
        in DocumentRecord document,
        in DecryptionOutput target,
        int maxDepth,
        bool separatorBefore,
        bool separatorAfter)
    {
        DataEncryptionKey key = target.Key;
        IBufferWriter<byte> output = target.Output;
        string keyId = target.KeyId;
        ReadOnlySpan<byte> token = input[document.EncryptedDataStart..document.EncryptedDataEnd];
        int blobLength = EncryptedValueCodec.GetMaxBlobLength(token.Length);
        int plainLength = key.GetDecryptByteCount(blobLength);
        var scratch = default(ScratchBuffer);
        Span<byte> rented = scratch.Rent(token.Length + blobLength + plainLength);
        Span<byte> base64 = rented[..token.Length];
        Span<byte> blob = rented.Slice(token.Length, blobLength);
        Span<byte> plainText = rented[(token.Length + blobLength)..];
        int written = 0;
        try
        {
            int base64Length = token.Length - 2;
            if (document.EncryptedDataEscaped)
            {
                base64Length = Text.JsonStringUnescaper.Unescape(token, base64);
            }
            else
            {
                token[1..^1].CopyTo(base64);
            }

            EncryptedValueStatus status = EncryptedValueCodec.TryDecryptLegacyBlob(key, base64[..base64Length], blob, plainText, out written);
            if (status != EncryptedValueStatus.Valid)
            {
                throw JsonErrors.CreateInvalidValue(status, status == EncryptedValueStatus.NotAuthentic ? null : LegacyBlobPath, keyId);
            }

            ReadOnlySpan<byte> json = plainText[..written];
            if (!ValueDecryptor.IsSingleContainer(json, isObject: true, maxDepth, levelOffset: 0))
            {
                JsonErrors.ThrowInvalidPlainText(LegacyBlobPath, keyId, "a JSON object");
            }

            RecordLegacyNames(json, scan);

            // The properties between the braces, trimmed; the object was validated.
            ReadOnlySpan<byte> inner = json.Trim(" \t\r\n"u8);
            inner = inner[1..^1].Trim(" \t\r\n"u8);
            if (inner.IsEmpty)
            {
                return;
            }

            if (separatorBefore)
            {
                output.Write(","u8);
            }

            output.Write(inner);
            if (separatorAfter)
            {
                output.Write(","u8);
            }
        }
        finally
        {
            CryptographicOperations.ZeroMemory(plainText[..written]);
            scratch.Dispose();
        }
    }

    // The decryption context of a format 2 document lists the properties the blob held (names only).
    private static void RecordLegacyNames(ReadOnlySpan<byte> json, DecryptionScan scan)
    {
        scan.ResetPaths();
        var reader = new Utf8JsonReader(json, new JsonReaderOptions { MaxDepth = EncryptionProcessorOptions.MaxAllowedDepth + 1 });
        reader.Read();
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            Span<byte> space = scan.GetNameSpace(reader.ValueSpan.Length, out int offset);
            int length = Text.JsonStringUnescaper.CopyString(ref reader, space);
            scan.CommitName(length);
            ref PathRecord path = ref scan.AddPath();
            path.NameOffset = offset;
            path.NameLength = length;
            path.PropertyIndex = 0;
            reader.Read();
            reader.Skip();
        }
    }
}
