namespace Encryption.Custom.Migration;

/// <summary>
/// The state a migration brings documents to (a <see cref="ContainerEncryptionPolicy"/>, or no encryption) and the
/// keys it may read documents with; decides, from what the stream processor's scan recorded, whether a stored
/// document is already there. The job and the status query both ask here, so they agree on "done".
/// </summary>
internal sealed class MigrationTarget
{
    private readonly HashSet<string> _sourceKeys;

    public MigrationTarget(ContainerEncryptionPolicy? policy, IEnumerable<string> acceptedSourceKeyIds)
    {
        ArgumentNullException.ThrowIfNull(acceptedSourceKeyIds);
        Policy = policy;
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

            WriteOptions = new EncryptionOptions
            {
                DataEncryptionKeyId = policy.DataEncryptionKeyId,
                EncryptionAlgorithm = policy.EncryptionAlgorithm,
                PathsToEncrypt = policy.Paths,
            };
        }
    }

    /// <summary>The target policy, or <see langword="null"/> for "decrypt everything".</summary>
    public ContainerEncryptionPolicy? Policy { get; }

    /// <summary>What a rewrite encrypts with, or <see langword="null"/> when the target is plaintext.</summary>
    public EncryptionOptions? WriteOptions { get; }

    /// <summary>Whether the job may decrypt a document encrypted with <paramref name="dataEncryptionKeyId"/>.</summary>
    public bool AcceptsSourceKey(string dataEncryptionKeyId) => _sourceKeys.Contains(dataEncryptionKeyId);

    /// <summary>
    /// Classifies one scanned document: reads its metadata with the stream processor's envelope reader and finds
    /// plaintext in the policy's paths with the policy read check's own scan.
    /// </summary>
    /// <param name="input">The scanned input (a document or a feed page).</param>
    /// <param name="scan">The scan of <paramref name="input"/>.</param>
    /// <param name="document">The document's record (prepared here).</param>
    /// <exception cref="EncryptionException">The document's metadata is malformed or unsupported.</exception>
    public DocumentState Classify(ReadOnlySpan<byte> input, DecryptionScan scan, ref DocumentRecord document)
    {
        bool encrypted = EnvelopeReader.Prepare(input, scan, ref document);
        ContainerEncryptionPolicy? policy = Policy;
        if (policy is null)
        {
            return new DocumentState(encrypted, encrypted ? document.KeyId : null, HasPlaintext: false, HasOtherPaths: false, InTarget: !encrypted);
        }

        bool plaintext = PolicyScan.FindPlaintext(input, scan, document, policy.Plan) >= 0;
        if (!encrypted)
        {
            return new DocumentState(false, null, plaintext, HasOtherPaths: false, InTarget: !plaintext);
        }

        bool otherPaths = document.Format != EnvelopeFormat.PerProperty;
        for (int i = 0; i < scan.PathCount && !otherPaths; i++)
        {
            otherPaths = policy.Plan.FindPath(scan.GetPathName(scan.Paths[i])) < 0;
        }

        bool inTarget = !plaintext && !otherPaths
            && string.Equals(document.KeyId, policy.DataEncryptionKeyId, StringComparison.Ordinal)
            && string.Equals(document.Algorithm, policy.EncryptionAlgorithm, StringComparison.Ordinal);
        return new DocumentState(true, document.KeyId, plaintext, otherPaths, inTarget);
    }
}
