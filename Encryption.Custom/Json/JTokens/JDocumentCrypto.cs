using System.Security.Cryptography;
using System.Text;
using Encryption.Custom.Crypto.Binding;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Json.JTokens;

/// <summary>Encrypts and decrypts the listed properties of a parsed document, in place.</summary>
internal static class JDocumentCrypto
{
    public static void Encrypt(JObject document, DataEncryptionKey key, EncryptionPlan plan)
    {
        if (document.ContainsKey(EncryptionEnvelope.PropertyName) || (plan.IsExtendedFormat && document.ContainsKey(EncryptionEnvelope.AnchorName)))
        {
            JsonErrors.ThrowAlreadyEncrypted();
        }

        if (plan.HasQueryTokens && document.ContainsKey(Tokens.QueryTokenRule.MemberName))
        {
            JsonErrors.ThrowReservedQueryTokens();
        }

        // The case-variant check, as the stream processor makes it: every name that matches no path exactly.
        SelectorNode nested = plan.NestedSelectors;
        foreach (JProperty property in document.Properties())
        {
            if (plan.FindPath(property.Name) < 0 && nested.FindChild(property.Name) < 0)
            {
                int variantOf = plan.FindPathIgnoringCase(property.Name);
                if (variantOf >= 0)
                {
                    JsonErrors.ThrowCaseVariant("/" + property.Name, plan.GetPath(variantOf), plan.DataEncryptionKeyId);
                }

                variantOf = nested.FindChildIgnoringCase(property.Name);
                if (variantOf >= 0)
                {
                    JsonErrors.ThrowCaseVariant("/" + property.Name, plan.GetPath(nested.GetChild(variantOf).FirstRuleIndex), plan.DataEncryptionKeyId);
                }
            }
        }

        CellBinding binding = plan.Binding is { } target
            ? JBinding.Compute(document, target, plan.EncryptionAlgorithm, plan.DataEncryptionKeyId, new Streaming.StoredKeyTokens(key, plan, MaxDepth: 64))
            : default;
        // From the plaintext, before the values are replaced by their cells (a value its declaration refuses stops the write here).
        JObject? queryTokens = JQueryTokens.Compute(document, key, plan);
        bool[] encrypted = new bool[plan.PathCount];
        for (int i = 0; i < plan.TopLevelCount; i++)
        {
            string name = plan.GetPath(i)[1..];
            if (!document.TryGetValue(name, out JToken? value) || value.Type == JTokenType.Null)
            {
                continue;
            }

            document[name] = JTokenValueCodec.Encrypt(value, key, plan, i, binding);
            encrypted[i] = true;
        }

        for (int i = 0; i < nested.ChildCount; i++)
        {
            if (document.TryGetValue(nested.GetChildName(i), out JToken? value))
            {
                JNestedCrypto.Encrypt(value, nested.GetChild(i), key, plan, encrypted, binding);
            }
        }

        var listed = new List<string>(plan.PathCount);
        for (int i = 0; i < plan.PathCount; i++)
        {
            if (encrypted[i])
            {
                listed.Add(plan.GetPath(i));
            }
        }

        if (queryTokens is not null)
        {
            document.Add(Tokens.QueryTokenRule.MemberName, queryTokens);
        }

        if (plan.Commits)
        {
            CommitmentChain chain = JCommitment.Chain(document, name => plan.FindPath(name) is int index and >= 0 && index < plan.TopLevelCount && encrypted[index], nested);
            document.Add(EncryptionEnvelope.AnchorName, JCommitment.Anchor(key, binding, listed, chain));
        }
        else if (plan.IsExtendedFormat)
        {
            document.Add(EncryptionEnvelope.AnchorName, ExtendedEnvelope.AnchorBase64);
        }

        document.Add(EncryptionEnvelope.PropertyName, JEnvelope.Create(plan, listed, plan.Commits));
    }

    /// <summary>
    /// Decrypts every listed value first and changes the document only when all succeeded, so that a failed
    /// document inside a feed page is left exactly as it was.
    /// </summary>
    /// <returns>The paths decrypted.</returns>
    /// <exception cref="EncryptionException">A value is invalid or not authentic, or a bound document is read without the container's binding (<paramref name="rules"/>).</exception>
    public static List<string> Decrypt(JObject document, JEnvelope envelope, DataEncryptionKey key, int maxDepth, PolicyRuleSet? rules = null)
    {
        // A bound document: D from its own id and partition key; deterministic paths (the policy's) are not bound.
        CellBinding binding = default;
        EncryptionPlan? policy = rules?.Plan;
        if (envelope.Bound)
        {
            BindingTarget target = policy?.Binding ?? throw DocumentBinding.NoBindingTarget(envelope.KeyId);
            binding = JBinding.Compute(document, target, envelope.Algorithm, envelope.KeyId);
            if (envelope.Commitment is { } commitment)
            {
                // Before any value is decrypted: the cells at the listed positions, in document order, must be the
                // ones the writer committed to.
                CommitmentChain chain = JCommitment.Chain(document, name => envelope.Paths.Contains("/" + name, StringComparer.Ordinal), envelope.Selectors?.Root);
                string expected = JCommitment.Anchor(key, binding, [.. envelope.Paths, .. envelope.Nested], chain);
                if (!CryptographicOperations.FixedTimeEquals(Convert.FromBase64String(expected).AsSpan(2), commitment))
                {
                    throw ExtendedEnvelope.CommitmentMismatch(envelope.KeyId);
                }
            }
        }

        var replacements = new List<KeyValuePair<string, JToken>>(envelope.Paths.Count);
        List<string> decrypted;
        var nested = new List<(JToken Cell, JToken Plain, string Path)>();
        if (envelope.Format is EnvelopeFormat.PerProperty or EnvelopeFormat.Extended)
        {
            decrypted = new List<string>(envelope.Paths.Count);
            foreach (string path in envelope.Paths)
            {
                string name = path[1..];
                if (!document.TryGetValue(name, out JToken? value) || value.Type == JTokenType.Null)
                {
                    continue;
                }

                if (value.Type != JTokenType.String)
                {
                    JsonErrors.ThrowNotAnEncryptedString(path, envelope.KeyId);
                }

                replacements.Add(new(name, JTokenValueCodec.Decrypt((string)value!, key, envelope.KeyId, path, maxDepth, BindingOf(policy, path, binding))));
                decrypted.Add(path);
            }

            if (envelope.Selectors is { } selectors)
            {
                decrypted.AddRange(JNestedCrypto.Decrypt(document, selectors, key, envelope.KeyId, maxDepth, nested, path => BindingOf(policy, path, binding)));
            }
        }
        else
        {
            // Format 2 reports the properties the blob actually held (not _ep, which lists every requested path).
            decrypted = [];
            foreach (JProperty property in DecryptLegacyBlob(envelope, key, maxDepth).Properties())
            {
                replacements.Add(new(property.Name, property.Value));
                decrypted.Add("/" + property.Name);
            }
        }

        if (envelope.HasQueryTokens)
        {
            // A strict reader under a policy that declares tokens checks them against the decrypted values first.
            if (rules is { ForbidsPlaintext: true } && rules.Plan.HasQueryTokens)
            {
                JQueryTokens.Verify(document[Tokens.QueryTokenRule.MemberName]!, [.. replacements.Select(r => KeyValuePair.Create("/" + r.Key, r.Value)), .. nested.Select(n => KeyValuePair.Create(n.Path, n.Plain))], key, rules, id: null);
            }

            document.Remove(Tokens.QueryTokenRule.MemberName);
        }

        document.Remove(EncryptionEnvelope.PropertyName);
        if (envelope.Format == EnvelopeFormat.Extended)
        {
            document.Remove(EncryptionEnvelope.AnchorName);
        }

        foreach ((JToken cell, JToken plain, _) in nested)
        {
            cell.Replace(plain);
        }

        foreach (KeyValuePair<string, JToken> replacement in replacements)
        {
            document[replacement.Key] = replacement.Value;
        }

        return decrypted;
    }

    // Deterministic cells are never bound: the policy says which paths those are.
    private static CellBinding BindingOf(EncryptionPlan? policy, string path, CellBinding binding)
    {
        int index = policy?.IndexOf(path) ?? -1;
        return index >= 0 && policy!.IsDeterministic(index) ? default : binding;
    }

    private static JObject DecryptLegacyBlob(JEnvelope envelope, DataEncryptionKey key, int maxDepth)
    {
        const string BlobPath = "/" + EncryptionEnvelope.PropertyName + "/" + EncryptionEnvelope.EncryptedDataName;
        byte[] base64 = Encoding.UTF8.GetBytes(envelope.EncryptedData!);
        byte[] blob = new byte[EncryptedValueCodec.GetMaxBlobLength(base64.Length)];
        byte[] plainText = new byte[key.GetDecryptByteCount(blob.Length)];
        int written = 0;
        try
        {
            EncryptedValueStatus status = EncryptedValueCodec.TryDecryptLegacyBlob(key, base64, blob, plainText, out written);
            if (status != EncryptedValueStatus.Valid)
            {
                throw JsonErrors.CreateInvalidValue(status, status == EncryptedValueStatus.NotAuthentic ? null : BlobPath, envelope.KeyId);
            }

            if (JObjectReader.TryParseValue(plainText.AsSpan(0, written), maxDepth, levels: 0) is not JObject properties)
            {
                JsonErrors.ThrowInvalidPlainText(BlobPath, envelope.KeyId, "a JSON object");
                return null;
            }

            return properties;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(plainText.AsSpan(0, written));
        }
    }
}
