using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Processing;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// Rewrites a patch for an encrypted document: Set/Add/Replace on an encrypted path carry the new value encrypted
/// with the document's key, Remove drops the path from <c>_ep</c>, and <c>_ei</c> is kept consistent with what the
/// document holds afterwards. Increments, moves and nested paths on encrypted properties are refused.
/// </summary>
/// <remarks>
/// "Encrypted paths" are those the stored document lists in <c>_ep</c> plus those of the request's
/// <see cref="EncryptionOptions"/>, so a property that was <c>null</c> (hence not encrypted) when the document was
/// written is still encrypted when a patch gives it a value. A value set to <c>null</c> is stored as plain
/// <c>null</c> and leaves <c>_ep</c>, as the wire format requires.
/// </remarks>
internal static class PatchTransformer
{
    /// <summary>Checks what can be checked before reading the document: the request's options and paths.</summary>
    /// <exception cref="EncryptionException">The options are invalid, or an operation is refused on a requested path.</exception>
    public static void ValidateRequest(IReadOnlyList<PatchOperation> operations, EncryptionOptions? requested)
    {
        EncryptedPathSet? paths = null;
        if (requested is not null)
        {
            EncryptionPlan plan = requested.GetPlan();
            paths = new EncryptedPathSet();
            for (int i = 0; i < plan.PathCount; i++)
            {
                paths.Add(plan.GetPath(i));
            }
        }

        for (int i = 0; i < operations.Count; i++)
        {
            CheckOperation(operations[i], paths, requested?.DataEncryptionKeyId);
        }
    }

    /// <summary>
    /// Checks the stored document a patch would apply to, before any key is loaded: under a policy, a value shaped
    /// like ciphertext at a policy path that the metadata does not list refuses the patch (it would rewrite the
    /// metadata without that value, or add one that lacks it).
    /// </summary>
    /// <param name="document">The stored document as read.</param>
    /// <param name="rules">The container's compiled policy, or <see langword="null"/>.</param>
    /// <param name="maxDepth">The container's depth limit.</param>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.UnlistedCipherText"/>, or the document cannot be read.</exception>
    public static void CheckStored(ReadOnlySpan<byte> document, PolicyRuleSet? rules, int maxDepth)
    {
        if (rules is null || document.IsEmpty)
        {
            return;
        }

        DecryptionScan scan = DecryptionScan.Rent();
        try
        {
            DocumentScanner.ScanDocument(document, scan, maxDepth);
            ref DocumentRecord record = ref scan.Documents[0];
            EnvelopeReader.Prepare(document, scan, ref record);
            int index = PolicyScan.FindUnlisted(document, scan, record, rules, out _, out bool cells);
            if (index >= 0 && cells)
            {
                throw PatchErrors.UnlistedCipherText(rules[index].Text, record.KeyId ?? rules.DataEncryptionKeyId);
            }
        }
        finally
        {
            DecryptionScan.Return(scan);
        }
    }

    /// <summary>Rewrites <paramref name="operations"/> for the stored document.</summary>
    /// <param name="operations">The caller's operations (already validated against the request).</param>
    /// <param name="stored">The document's metadata, or <see langword="null"/> when it is not encrypted.</param>
    /// <param name="requested">The request's encryption options, or <see langword="null"/>.</param>
    /// <param name="crypto">The container's policy, processor, encryptor and serializer: the stored key must be one its policy accepts, checked before any key is loaded.</param>
    /// <param name="telemetry">The operation's telemetry.</param>
    /// <param name="cancellationToken">Cancels key lookups.</param>
    /// <returns>
    /// The operations to send (the same list when nothing is encrypted), and the document's metadata once they
    /// are applied (<see langword="null"/> when it is not encrypted).
    /// </returns>
    /// <exception cref="EncryptionException">An operation is refused, a value cannot be encrypted, or the key is unavailable.</exception>
    public static async ValueTask<(IReadOnlyList<PatchOperation> Operations, EnvelopeMetadata? Envelope)> TransformAsync(
        IReadOnlyList<PatchOperation> operations,
        EnvelopeMetadata? stored,
        EncryptionOptions? requested,
        PatchCrypto crypto,
        OperationTelemetry? telemetry,
        CancellationToken cancellationToken)
    {
        PolicyRuleSet? rules = crypto.Rules;
        if (rules is not null && stored is not null && !rules.AcceptsKey(stored.DataEncryptionKeyId))
        {
            // A key id read from the document never reaches the key store unless the policy accepts it.
            throw PatchErrors.KeyNotAccepted(stored.DataEncryptionKeyId);
        }

        var encryptedPaths = new EncryptedPathSet();
        if (stored is not null)
        {
            foreach (string path in stored.Paths)
            {
                encryptedPaths.Add(path);
            }
        }

        if (requested is not null)
        {
            EncryptionPlan plan = requested.GetPlan();
            for (int i = 0; i < plan.PathCount; i++)
            {
                encryptedPaths.Add(plan.GetPath(i));
            }
        }

        string? keyId = stored?.DataEncryptionKeyId ?? requested?.DataEncryptionKeyId;
        string algorithm = stored?.Algorithm ?? requested?.EncryptionAlgorithm ?? CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;
        if (encryptedPaths.Count == 0 || keyId is null)
        {
            for (int i = 0; i < operations.Count; i++)
            {
                CheckOperation(operations[i], null, null);
            }

            return (operations, stored);
        }

        List<string> storedPaths = stored is null ? [] : [.. stored.Paths];
        var newPaths = new List<string>(storedPaths);
        var result = new List<PatchOperation>(operations.Count + 1);
        long start = telemetry is null ? 0 : OperationTelemetry.Timestamp();
        long valueBytes = 0;
        int encryptedValues = 0;
        bool extended = stored?.FormatVersion == EncryptionEnvelope.ExtendedFormatVersion
            || rules?.Plan.IsExtendedFormat == true
            || rules?.Binds == true
            || requested?.GetPlan().IsExtendedFormat == true;
        for (int i = 0; i < operations.Count; i++)
        {
            PatchOperation operation = operations[i];
            string top = CheckOperation(operation, encryptedPaths, keyId);
            if (!encryptedPaths.Contains(top))
            {
                result.Add(operation);
                continue;
            }

            if (extended)
            {
                // The rewritten metadata would be format 3: a downgrade of the document or of the policy's format.
                throw PatchErrors.ExtendedFormat(top, keyId);
            }

            if (stored is not null && stored.FormatVersion != EncryptionEnvelope.CurrentFormatVersion)
            {
                throw PatchErrors.LegacyFormat(top, keyId);
            }

            if (operation.OperationType == PatchOperationType.Remove)
            {
                result.Add(operation);
                newPaths.Remove(top);
                continue;
            }

            if (!operation.TrySerializeValueParameter(crypto.Serializer, out Stream? valueStream) || valueStream is null)
            {
                throw new EncryptionException(EncryptionErrorKind.InvalidOptions, $"The patch operation on '{operation.Path}' carries no value to encrypt.", keyId, top);
            }

            PooledBufferWriter value;
            using (valueStream)
            {
                value = PatchValueEncryptor.ReadJson(valueStream);
            }

            try
            {
                if (PatchValueEncryptor.IsNull(value.WrittenSpan))
                {
                    // Null is never encrypted: stored as plain null and no longer listed.
                    result.Add(operation);
                    newPaths.Remove(top);
                    continue;
                }

                valueBytes += value.WrittenCount;
                string cipherText = await PatchValueEncryptor.EncryptAsync(value.WrittenMemory, crypto, keyId, algorithm, top, IsDeterministic(top, rules, requested), cancellationToken).ConfigureAwait(false);
                encryptedValues++;
                result.Add(WithValue(operation, cipherText));
                if (!newPaths.Contains(top))
                {
                    newPaths.Add(top);
                }
            }
            finally
            {
                PooledBufferWriterPool.Return(value);
            }
        }

        EnvelopeMetadata? after = stored;
        if (stored is null)
        {
            if (newPaths.Count > 0)
            {
                result.Add(PatchOperation.Set("/" + EncryptionEnvelope.PropertyName, CreateEnvelope(keyId, algorithm, newPaths)));
                after = EnvelopeMetadata.Create(EncryptionEnvelope.CurrentFormatVersion, keyId, algorithm, newPaths);
            }
        }
        else if (!newPaths.SequenceEqual(storedPaths, StringComparer.Ordinal))
        {
            result.Add(PatchOperation.Set("/" + EncryptionEnvelope.PropertyName + "/" + EncryptionEnvelope.PathsName, newPaths.ToArray()));
            after = EnvelopeMetadata.Create(stored.FormatVersion, stored.DataEncryptionKeyId, stored.Algorithm, newPaths);
        }

        if (encryptedValues > 0)
        {
            telemetry?.RecordEncrypt(start, BodyCrypto.ProcessorName(crypto.Processor), valueBytes, keyId, encryptedValues);
        }

        return (result, after);
    }

    // The policy says how a path is encrypted, whatever the request carries; request-level options only through it.
    private static bool IsDeterministic(string top, PolicyRuleSet? rules, EncryptionOptions? requested)
    {
        if (rules is not null)
        {
            int index = rules.Plan.FindPath(top[1..]);
            if (index >= 0)
            {
                return rules[index].IsDeterministic;
            }
        }

        return requested?.DeterministicPaths?.Contains(top) == true;
    }

    /// <summary>Validates one operation; returns its top-level path.</summary>
    private static string CheckOperation(PatchOperation operation, EncryptedPathSet? encryptedPaths, string? keyId)
    {
        ArgumentNullException.ThrowIfNull(operation);
        if (encryptedPaths is { HasNested: true })
        {
            // Fail closed until patch operations are classified against nested selectors.
            string? addressed = operation.Path;
            string? selector = encryptedPaths.FindRelatedSelector(addressed);
            if (selector is null && operation.OperationType == PatchOperationType.Move)
            {
                addressed = operation.From;
                selector = encryptedPaths.FindRelatedSelector(addressed);
            }

            if (selector is not null)
            {
                throw PatchErrors.NestedSelector(addressed!, selector, keyId);
            }
        }

        string top = GetTopLevel(operation.Path, encryptedPaths, keyId, out bool isNested);
        if (operation.OperationType == PatchOperationType.Move)
        {
            string fromTop = GetTopLevel(operation.From, encryptedPaths, keyId, out _);
            if (encryptedPaths is not null && (encryptedPaths.Contains(top) || encryptedPaths.Contains(fromTop)))
            {
                throw PatchErrors.Move(operation.From, operation.Path, keyId);
            }

            return top;
        }

        if (encryptedPaths is null || !encryptedPaths.Contains(top))
        {
            return top;
        }

        if (isNested)
        {
            throw PatchErrors.Nested(operation.Path, top, keyId);
        }

        if (operation.OperationType == PatchOperationType.Increment)
        {
            throw PatchErrors.Increment(operation.Path, keyId);
        }

        return top;
    }

    /// <summary>The top-level property <paramref name="path"/> addresses, checked against the metadata and the encrypted paths.</summary>
    private static string GetTopLevel(string? path, EncryptedPathSet? encryptedPaths, string? keyId, out bool isNested)
    {
        if (!PatchPath.TryGetTopLevel(path, out string top, out string literal, out isNested, out bool emptySegment))
        {
            throw PatchErrors.InvalidPath(path);
        }

        if (emptySegment)
        {
            throw PatchErrors.EmptySegment(path!);
        }

        if (top == "/" + EncryptionEnvelope.PropertyName || literal == "/" + EncryptionEnvelope.PropertyName)
        {
            throw PatchErrors.Metadata(path!);
        }

        // The service documents JSON Pointer escapes, while other readers (the bundled endpoint, Microsoft's
        // package) take the name literally. When the two readings differ and either is encrypted, the operation
        // could reach an encrypted property with a plaintext value (or the reverse): refuse it.
        if (encryptedPaths is null)
        {
            return top;
        }

        string? match = encryptedPaths.FindIgnoringCase(top);
        if (!string.Equals(top, literal, StringComparison.Ordinal) && (match is not null || encryptedPaths.FindIgnoringCase(literal) is not null))
        {
            throw PatchErrors.AmbiguousEscape(path!, keyId);
        }

        if (match is not null && !string.Equals(match, top, StringComparison.Ordinal))
        {
            throw PatchErrors.CaseVariant(path!, match, keyId);
        }

        return top;
    }

    private static PatchOperation WithValue(PatchOperation operation, string cipherText) => operation.OperationType switch
    {
        PatchOperationType.Add => PatchOperation.Add(operation.Path, cipherText),
        PatchOperationType.Replace => PatchOperation.Replace(operation.Path, cipherText),
        _ => PatchOperation.Set(operation.Path, cipherText),
    };

    // Serialized by the client's serializer: a dictionary keeps the names as they are (naming policies leave a
    // leading underscore alone), and readers accept "_ed" absent when a serializer drops nulls.
    private static Dictionary<string, object?> CreateEnvelope(string keyId, string algorithm, List<string> paths) => new(StringComparer.Ordinal)
    {
        [EncryptionEnvelope.FormatVersionName] = EncryptionEnvelope.CurrentFormatVersion,
        [EncryptionEnvelope.KeyIdName] = keyId,
        [EncryptionEnvelope.AlgorithmName] = algorithm,
        [EncryptionEnvelope.EncryptedDataName] = null,
        [EncryptionEnvelope.PathsName] = paths.ToArray(),
    };
}
