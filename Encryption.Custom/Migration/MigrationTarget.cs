using System.Buffers;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.Streaming;
using Encryption.Custom.Json.Text;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Migration;

/// <summary>
/// The state a migration brings documents to (a <see cref="ContainerEncryptionPolicy"/>, or no encryption) and the
/// keys it may read documents with; decides, from what the stream processor's scan recorded, whether a stored
/// document is already there. The job and the status query both ask here, so they agree on "done".
/// </summary>
/// <remarks>
/// In the target state means: the policy's key and algorithm, exactly the policy's paths, no plaintext in them, and
/// each path encrypted as the policy says — deterministic or randomized. The last is invisible in the metadata and
/// the cell: with an encryptor, the values of a document otherwise in the target state are decrypted and their IV
/// recomputed (<see cref="EncryptedValueCodec.TryCheckDeterministic"/>). Without one (the keyless status query) it
/// is not checked.
/// </remarks>
internal sealed class MigrationTarget
{
    private readonly HashSet<string> _sourceKeys;
    private readonly Encryptor? _encryptor;

    // The deterministic IV prefix of every policy path (by plan index), randomized ones too: a deterministic cell
    // under a randomized path reveals equality, so it is outside the target state as well.
    private readonly byte[][] _pathPrefixes = [];

    /// <param name="policy">The target policy, or <see langword="null"/> for "decrypt everything".</param>
    /// <param name="acceptedSourceKeyIds">Keys documents may be read with besides the policy's.</param>
    /// <param name="encryptor">The keys to check each path's encryption type with; <see langword="null"/> to leave it unchecked.</param>
    public MigrationTarget(ContainerEncryptionPolicy? policy, IEnumerable<string> acceptedSourceKeyIds, Encryptor? encryptor)
    {
        ArgumentNullException.ThrowIfNull(acceptedSourceKeyIds);
        Policy = policy;
        _encryptor = encryptor;
        _sourceKeys = new HashSet<string>(StringComparer.Ordinal);
        foreach (string id in acceptedSourceKeyIds)
        {
            ArgumentException.ThrowIfNullOrWhiteSpace(id, nameof(acceptedSourceKeyIds));
            _sourceKeys.Add(id);
        }

        if (policy is not null)
        {
            _sourceKeys.Add(policy.DataEncryptionKeyId);
            foreach (string id in policy.AcceptedDataEncryptionKeyIds)
            {
                _sourceKeys.Add(id);
            }

            Rules = policy.Rules;
            WriteOptions = Rules.CreateWriteOptions();
            EncryptionPlan plan = Rules.Plan;
            _pathPrefixes = new byte[plan.PathCount][];
            for (int i = 0; i < plan.PathCount; i++)
            {
                _pathPrefixes[i] = DeterministicIvContext.CreatePathPrefix(plan.GetPath(i));
            }
        }
    }

    /// <summary>The target policy, or <see langword="null"/> for "decrypt everything".</summary>
    public ContainerEncryptionPolicy? Policy { get; }

    /// <summary>The target policy compiled, or <see langword="null"/> for "decrypt everything".</summary>
    public PolicyRuleSet? Rules { get; }

    /// <summary>What a rewrite encrypts with, or <see langword="null"/> when the target is plaintext.</summary>
    public EncryptionOptions? WriteOptions { get; }

    /// <summary>Whether <see cref="Classify"/> checks each path's encryption type (it needs the key) or there is none to check.</summary>
    public bool ChecksEncryptionTypes => Policy is null || _encryptor is not null;

    /// <summary>The keys documents may be read with: the accepted source keys, the policy's key and its accepted keys.</summary>
    public IReadOnlyCollection<string> SourceKeyIds => _sourceKeys;

    /// <summary>Whether the job may decrypt a document encrypted with <paramref name="dataEncryptionKeyId"/>.</summary>
    public bool AcceptsSourceKey(string dataEncryptionKeyId) => _sourceKeys.Contains(dataEncryptionKeyId);

    /// <summary>
    /// Leases the key <see cref="Classify"/> checks encryption types with (the target key), for one page or document.
    /// A default lease when nothing is checked. A key that cannot be had gives a default lease too: the documents
    /// that need it are then reported by <see cref="Classify"/> (<see cref="EncryptionErrorKind.KeyUnavailable"/>),
    /// as their rewrite would be, and the others are judged as usual.
    /// </summary>
    public async ValueTask<DataEncryptionKeyLease> LeaseCheckKeyAsync(CancellationToken cancellationToken)
    {
        if (_encryptor is null || Policy is not { } policy)
        {
            return default;
        }

        try
        {
            return await _encryptor.LeaseEncryptionKeyAsync(policy.DataEncryptionKeyId, policy.EncryptionAlgorithm, cancellationToken).ConfigureAwait(false);
        }
        catch (EncryptionException)
        {
            return default;
        }
    }

    /// <summary>
    /// Classifies one scanned document: reads its metadata with the stream processor's envelope reader, finds
    /// plaintext in the policy's paths with the policy read check's own scan, and, for a document otherwise in the
    /// target state, checks that each path is encrypted deterministically or randomized as the policy says.
    /// </summary>
    /// <param name="input">The scanned input (a document or a feed page).</param>
    /// <param name="scan">The scan of <paramref name="input"/>.</param>
    /// <param name="document">The document's record (prepared here).</param>
    /// <param name="checkKey">The lease from <see cref="LeaseCheckKeyAsync"/>.</param>
    /// <exception cref="EncryptionException">
    /// The document's metadata is malformed or unsupported, a value to check is not authentic, or the key to check it
    /// with is unavailable.
    /// </exception>
    public DocumentState Classify(ReadOnlySpan<byte> input, DecryptionScan scan, ref DocumentRecord document, in DataEncryptionKeyLease checkKey)
    {
        bool encrypted = EnvelopeReader.Prepare(input, scan, ref document);
        PolicyRuleSet? policy = Rules;
        if (policy is null)
        {
            return new DocumentState(encrypted, encrypted ? document.KeyId : null, HasPlaintext: false, HasOtherPaths: false, InTarget: !encrypted);
        }

        // A value shaped like ciphertext that the metadata does not list is never plaintext: the document is outside
        // the target state, and the job reports it instead of encrypting the ciphertext a second time.
        bool found = PolicyScan.FindUnlisted(input, scan, document, policy, out _, out bool cells) >= 0;
        bool plaintext = found && !cells;
        if (!encrypted)
        {
            return new DocumentState(false, null, plaintext, HasOtherPaths: false, InTarget: !found, HasUnlistedCipherText: cells);
        }

        bool otherPaths = document.Format != EnvelopeFormat.PerProperty;
        for (int i = 0; i < scan.PathCount && !otherPaths; i++)
        {
            otherPaths = policy.Plan.FindPath(scan.GetPathName(scan.Paths[i])) < 0;
        }

        bool inTarget = !found && !otherPaths
            && string.Equals(document.KeyId, policy.DataEncryptionKeyId, StringComparison.Ordinal)
            && string.Equals(document.Algorithm, policy.EncryptionAlgorithm, StringComparison.Ordinal);
        if (inTarget && _encryptor is not null)
        {
            inTarget = HasPolicyEncryptionTypes(input, scan, document, policy.Plan, checkKey.Key);
        }

        return new DocumentState(true, document.KeyId, plaintext, otherPaths, inTarget, cells);
    }

    /// <summary>
    /// The error that reports a document <see cref="Classify"/> found holding a value shaped like ciphertext that its
    /// metadata does not list: <see cref="EncryptionErrorKind.UnlistedCipherText"/> when a key of the target policy
    /// authenticates it, else why not (tampered, or a key unavailable). Without an encryptor the value is not verified.
    /// </summary>
    public EncryptionException DescribeUnlistedCipherText(ReadOnlySpan<byte> input, DecryptionScan scan, in DocumentRecord document)
    {
        PolicyRuleSet rules = Rules!;
        int index = PolicyScan.FindUnlisted(input, scan, document, rules, out int property, out bool cells);
        string? id = FeedPageSession.ReadId(input, scan, document);
        if (index < 0 || !cells || _encryptor is null)
        {
            return new EncryptionException(
                EncryptionErrorKind.UnlistedCipherText,
                $"The document holds a value shaped like an encrypted value at '{(index < 0 ? "?" : rules[index].Text)}' that its encryption metadata does not list: it is not encrypted again.",
                rules.DataEncryptionKeyId,
                index < 0 ? null : rules[index].Text);
        }

        return PolicyScan.CreateCellError(input, scan.Properties[property], rules, _encryptor, rules[index].Text, id);
    }

    // Every listed value of a per-property document whose paths are all the policy's: decrypted, its IV recomputed.
    private bool HasPolicyEncryptionTypes(ReadOnlySpan<byte> input, DecryptionScan scan, in DocumentRecord document, EncryptionPlan plan, DataEncryptionKey? key)
    {
        for (int i = 0; i < scan.PathCount; i++)
        {
            ref readonly PathRecord path = ref scan.Paths[i];
            if (path.PropertyIndex < 0)
            {
                continue;
            }

            ReadOnlySpan<byte> name = scan.GetPathName(path);
            if (key is null)
            {
                throw new EncryptionException(
                    EncryptionErrorKind.KeyUnavailable,
                    $"The data encryption key '{UntrustedText.Shorten(document.KeyId!)}' is unavailable, so whether the document's values are encrypted deterministically or randomized, as the target policy says, cannot be checked.",
                    document.KeyId);
            }

            int planIndex = plan.FindPath(name);
            if (IsDeterministic(input, scan.Properties[path.PropertyIndex], name, key, document.KeyId!, _pathPrefixes[planIndex]) != plan.IsDeterministic(planIndex))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Whether the encrypted value of <paramref name="property"/> has the deterministic IV of its path (decrypts it in memory).</summary>
    /// <exception cref="EncryptionException">The value is not authentic, or not a valid cell.</exception>
    internal static bool IsDeterministic(ReadOnlySpan<byte> input, in PropertyRecord property, ReadOnlySpan<byte> name, DataEncryptionKey key, string keyId, ReadOnlySpan<byte> pathPrefix)
    {
        ReadOnlySpan<byte> token = input[property.ValueStart..property.ValueEnd];
        byte[]? unescaped = null;
        try
        {
            ReadOnlySpan<byte> base64 = token[1..^1];
            if (property.ValueEscaped)
            {
                // Some writers escape '+' and '/'; base64 is public, so the copy needs no wiping.
                unescaped = ArrayPool<byte>.Shared.Rent(token.Length);
                base64 = unescaped.AsSpan(0, JsonStringUnescaper.Unescape(token, unescaped));
            }

            EncryptedValueStatus status = EncryptedValueCodec.TryCheckDeterministic(key, base64, pathPrefix, out bool deterministic);
            if (status != EncryptedValueStatus.Valid)
            {
                JsonErrors.ThrowInvalidValue(status, name, keyId);
            }

            return deterministic;
        }
        finally
        {
            if (unescaped is not null)
            {
                ArrayPool<byte>.Shared.Return(unescaped);
            }
        }
    }
}
