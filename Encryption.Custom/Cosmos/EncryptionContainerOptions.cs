namespace Encryption.Custom;

/// <summary>Settings of one encryption container (see <see cref="EncryptionContainerExtensions.WithEncryptor"/>).</summary>
public sealed class EncryptionContainerOptions
{
    /// <summary>The default <see cref="PatchMaxAttempts"/>: 3.</summary>
    public const int DefaultPatchMaxAttempts = 3;

    private int _patchMaxAttempts = DefaultPatchMaxAttempts;

    /// <summary>
    /// The processor that encrypts every request body and patch value of the container and decrypts every response,
    /// feed page and batch result. Default <see cref="JsonProcessor.Stream"/>. The one place the processor is chosen
    /// (per container, as in Microsoft's package; docs/public-api.md): both write documents the other reads.
    /// </summary>
    public JsonProcessor JsonProcessor { get; set; } = JsonProcessor.Stream;

    /// <summary>
    /// What the container encrypts without being asked, and the plaintext it refuses to read. Default
    /// <see langword="null"/>: writes encrypt only what their <see cref="EncryptionItemRequestOptions.EncryptionOptions"/>
    /// ask for, and reads accept any document. With a policy, every write (typed and stream create, replace and
    /// upsert, patch, transactional batch, bulk) encrypts the policy's paths; a request's own options may add paths
    /// but not leave any out. See docs/policy.md.
    /// </summary>
    public ContainerEncryptionPolicy? Policy { get; set; }

    /// <summary>
    /// The limits both processors enforce on every document and feed page (size, depth). Default
    /// <see langword="null"/>: <see cref="EncryptionProcessorOptions"/>' defaults (16 MiB, depth 64).
    /// </summary>
    public EncryptionProcessorOptions? ProcessorOptions { get; set; }

    /// <summary>
    /// How many times a patch that touches encrypted properties is tried when the document changes between the
    /// read of its encryption metadata and the conditional patch (HTTP 412). Default
    /// <see cref="DefaultPatchMaxAttempts"/>. A patch whose request names its own <c>IfMatchEtag</c> is tried once.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 1.</exception>
    public int PatchMaxAttempts
    {
        get => _patchMaxAttempts;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1);
            _patchMaxAttempts = value;
        }
    }

    /// <summary>
    /// Whether a patch that cannot be sent as a patch once its values are encrypted is applied as a conditional
    /// replace instead: the document is read and decrypted, the operations are applied in process, and the result is
    /// encrypted and replaced on the condition that the document is still the one read (its ETag), retried up to
    /// <see cref="PatchMaxAttempts"/> times. It applies when the encrypted rewrite would exceed the service's limit of
    /// operations per patch, when a move carries encrypted values, when an operation changes a value with query tokens,
    /// or when the stored document is not encrypted in the format the options write (format 2 under any options; for
    /// options that write format 101, also a document not yet encrypted, under another key, or otherwise bound). Default <see langword="true"/>; with <see langword="false"/> such a
    /// patch is refused with <see cref="EncryptionErrorKind.InvalidOptions"/> before anything is written. See docs/policy.md.
    /// </summary>
    public bool PatchFallbackToReplace { get; set; } = true;
}
