using System.Buffers;
using Encryption.Custom.Json.Errors;
using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;
using Encryption.Custom.Keys;

namespace Encryption.Custom.Processing;

/// <summary>
/// Encrypts and decrypts the chosen top-level properties of JSON documents (wire format 3; format 2 is also
/// read), and decrypts query and change-feed pages document by document. Implemented by
/// <see cref="StreamProcessor"/> (the product path) and <see cref="NewtonsoftProcessor"/> (the baseline); both
/// produce documents the other decrypts to the same JSON value.
/// </summary>
/// <remarks>
/// <para>
/// Instances are immutable and safe for concurrent use. Create one per set of limits and reuse it.
/// </para>
/// <para>
/// Outputs on failure: the <see cref="Stream"/> overloads write nothing to the destination stream unless the
/// whole operation succeeded. The <see cref="IBufferWriter{T}"/> overloads write progressively: after an
/// exception the writer holds an incomplete prefix (never a complete-looking document: the root's closing brace
/// is written last), which may include decrypted values, and which the caller must discard (and clear).
/// </para>
/// <para>
/// The synchronous decryption overloads resolve keys through the encryptor synchronously: free when the
/// encryptor answers from its cache, otherwise the calling thread waits for the lookup. Prefer the asynchronous
/// overloads where blocking is not acceptable.
/// </para>
/// </remarks>
public abstract partial class EncryptionProcessor
{
    private static readonly EncryptionProcessorOptions s_defaultOptions = new();
    private static readonly FeedPageDecryptionOptions s_defaultFeedOptions = new();

    /// <summary>Creates a processor with the given limits.</summary>
    /// <param name="options">The limits; <see langword="null"/> for the defaults.</param>
    protected EncryptionProcessor(EncryptionProcessorOptions? options)
    {
        options ??= s_defaultOptions;
        MaxDocumentLength = options.MaxDocumentLength;
        MaxDepth = options.MaxDepth;
    }

    /// <summary>The largest input accepted, in bytes (see <see cref="EncryptionProcessorOptions.MaxDocumentLength"/>).</summary>
    public int MaxDocumentLength { get; }

    /// <summary>The deepest nesting accepted (see <see cref="EncryptionProcessorOptions.MaxDepth"/>).</summary>
    public int MaxDepth { get; }

    /// <summary>
    /// The read side of an encryption container's compiled policy, checked while decrypting (documents and feed
    /// pages): set only on the processors a container creates for itself; <see langword="null"/> for every other instance.
    /// </summary>
    internal PolicyRuleSet? Rules { get; init; }

    /// <summary>
    /// Creates the processor of the given kind: the one mapping from <see cref="JsonProcessor"/> to an
    /// implementation (the container's <see cref="EncryptionContainerOptions.JsonProcessor"/>, the tool, the
    /// benchmarks). Applications at this level construct <see cref="StreamProcessor"/> or
    /// <see cref="NewtonsoftProcessor"/> directly.
    /// </summary>
    /// <param name="processor">Which implementation.</param>
    /// <param name="options">The limits; <see langword="null"/> for the defaults.</param>
    /// <param name="rules">An encryption container's compiled policy to check on every read (<see cref="Rules"/>), or <see langword="null"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="processor"/> is not a defined value.</exception>
    internal static EncryptionProcessor Create(JsonProcessor processor, EncryptionProcessorOptions? options = null, PolicyRuleSet? rules = null) => processor switch
    {
        JsonProcessor.Stream => new StreamProcessor(options) { Rules = rules },
        JsonProcessor.Newtonsoft => new NewtonsoftProcessor(options) { Rules = rules },
        _ => throw new ArgumentOutOfRangeException(nameof(processor), processor, "Unknown JSON processor."),
    };

    /// <summary>
    /// Encrypts the properties named by <paramref name="options"/> in the UTF-8 JSON <paramref name="document"/>
    /// with <paramref name="key"/>, and appends the metadata <c>_ei</c>.
    /// </summary>
    /// <param name="document">A UTF-8 JSON object.</param>
    /// <param name="output">Receives the encrypted document.</param>
    /// <param name="key">The key <paramref name="options"/> names (already resolved).</param>
    /// <param name="options">What to encrypt and the key id written to the metadata.</param>
    /// <exception cref="ArgumentNullException"><paramref name="output"/>, <paramref name="key"/> or <paramref name="options"/> is null.</exception>
    /// <exception cref="EncryptionException">
    /// Invalid options or a key for another algorithm (<see cref="EncryptionErrorKind.InvalidOptions"/>,
    /// <see cref="EncryptionErrorKind.KeyUnavailable"/>); a document that is not valid JSON, not an object, already
    /// encrypted or with a repeated encrypted property (<see cref="EncryptionErrorKind.MalformedDocument"/>); a
    /// document over the limits or a number that cannot be represented (<see cref="EncryptionErrorKind.LimitExceeded"/>).
    /// </exception>
    /// <exception cref="ObjectDisposedException"><paramref name="key"/> was disposed.</exception>
    public abstract void Encrypt(ReadOnlySpan<byte> document, IBufferWriter<byte> output, DataEncryptionKey key, EncryptionOptions options);

    /// <summary>
    /// <see cref="Encrypt"/> for a caller that already holds a <see cref="DataEncryptionKeyLease"/> on
    /// <paramref name="key"/> (a key from an encryptor): the library's processors take no second reference, which
    /// would fail once the key's owner has evicted it. Processors outside the library take their own path.
    /// </summary>
    internal virtual void EncryptLeased(ReadOnlySpan<byte> document, IBufferWriter<byte> output, DataEncryptionKey key, EncryptionOptions options) =>
        Encrypt(document, output, key, options);

    /// <summary>
    /// Decrypts the UTF-8 JSON <paramref name="document"/>: the values its metadata lists are decrypted and the
    /// metadata removed. A document without metadata is copied unchanged.
    /// </summary>
    /// <param name="document">A UTF-8 JSON object.</param>
    /// <param name="output">Receives the decrypted document.</param>
    /// <param name="encryptor">Supplies the key the document names.</param>
    /// <param name="includeDecryptionContext">Whether to return what was decrypted (allocates; off by default).</param>
    /// <returns>The decryption context when asked for and the document was encrypted; otherwise <see langword="null"/>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="output"/> or <paramref name="encryptor"/> is null.</exception>
    /// <exception cref="EncryptionException">
    /// Malformed JSON or metadata (<see cref="EncryptionErrorKind.MalformedDocument"/>); an unknown format or
    /// algorithm (<see cref="EncryptionErrorKind.UnsupportedFormat"/>); bad base64, an unknown type marker or a
    /// plaintext that does not fit its marker (<see cref="EncryptionErrorKind.InvalidEncryptedValue"/>); a wrong key
    /// or tampered value (<see cref="EncryptionErrorKind.InvalidCipherText"/>); an unavailable key
    /// (<see cref="EncryptionErrorKind.KeyUnavailable"/>); limits (<see cref="EncryptionErrorKind.LimitExceeded"/>).
    /// </exception>
    /// <exception cref="ObjectDisposedException">The encryptor handed out an already disposed key twice in a row.</exception>
    public abstract DecryptionContext? Decrypt(ReadOnlySpan<byte> document, IBufferWriter<byte> output, Encryptor encryptor, bool includeDecryptionContext = false);

    /// <summary>
    /// Decrypts a query or change-feed response page (<c>{"_rid":…,"Documents":[…],"_count":n}</c>) document by
    /// document. Documents without metadata, elements that are not objects, and the other properties of the page
    /// are copied through.
    /// </summary>
    /// <param name="page">The UTF-8 JSON page.</param>
    /// <param name="output">Receives the decrypted page.</param>
    /// <param name="encryptor">Supplies the keys the documents name.</param>
    /// <param name="options">Failure handling and contexts; <see langword="null"/> for the defaults.</param>
    /// <returns>Counts, per-document failures (with <see cref="FeedItemFailureMode.ReportPerItem"/>) and contexts.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="output"/> or <paramref name="encryptor"/> is null.</exception>
    /// <exception cref="EncryptionException">
    /// The page is not valid JSON, not an object, or over the limits; or, with <see cref="FeedItemFailureMode.FailPage"/>,
    /// a document could not be decrypted (the message names its id and index; <see cref="EncryptionException.Kind"/>
    /// is the document's error kind).
    /// </exception>
    /// <exception cref="ObjectDisposedException">The encryptor handed out an already disposed key twice in a row.</exception>
    public abstract FeedPageDecryptionResult DecryptFeedPage(
        ReadOnlySpan<byte> page,
        IBufferWriter<byte> output,
        Encryptor encryptor,
        FeedPageDecryptionOptions? options = null);

    /// <summary>Decrypts a document held in memory; the asynchronous core of the <see cref="Stream"/> overloads.</summary>
    /// <param name="document">The whole document.</param>
    /// <param name="output">Receives the decrypted document.</param>
    /// <param name="encryptor">Supplies the key.</param>
    /// <param name="includeDecryptionContext">Whether to return a context.</param>
    /// <param name="cancellationToken">Cancels the key lookup.</param>
    /// <returns>The context, as <see cref="Decrypt"/>.</returns>
    /// <exception cref="EncryptionException">As <see cref="Decrypt"/>.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    protected abstract ValueTask<DecryptionContext?> DecryptCoreAsync(
        ReadOnlyMemory<byte> document,
        IBufferWriter<byte> output,
        Encryptor encryptor,
        bool includeDecryptionContext,
        CancellationToken cancellationToken);

    /// <summary>Decrypts a feed page held in memory; the asynchronous core of the <see cref="Stream"/> overloads.</summary>
    /// <param name="page">The whole page.</param>
    /// <param name="output">Receives the decrypted page.</param>
    /// <param name="encryptor">Supplies the keys.</param>
    /// <param name="options">Failure handling and contexts.</param>
    /// <param name="cancellationToken">Checked between documents and cancels key lookups.</param>
    /// <returns>As <see cref="DecryptFeedPage"/>.</returns>
    /// <exception cref="EncryptionException">As <see cref="DecryptFeedPage"/>.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    protected abstract ValueTask<FeedPageDecryptionResult> DecryptFeedPageCoreAsync(
        ReadOnlyMemory<byte> page,
        IBufferWriter<byte> output,
        Encryptor encryptor,
        FeedPageDecryptionOptions options,
        CancellationToken cancellationToken);

    /// <summary>
    /// The checks every processor makes before encrypting, in this order: arguments, the compiled plan (invalid
    /// options fail here), the key's algorithm against the plan's, the input length.
    /// </summary>
    private protected EncryptionPlan PrepareEncrypt(int length, IBufferWriter<byte> output, DataEncryptionKey key, EncryptionOptions options)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(key);
        ArgumentNullException.ThrowIfNull(options);
        EncryptionPlan plan = options.GetPlan();
        if (!string.Equals(key.EncryptionAlgorithm, plan.EncryptionAlgorithm, StringComparison.Ordinal))
        {
            JsonErrors.ThrowKeyAlgorithmMismatch(key.EncryptionAlgorithm, plan.EncryptionAlgorithm, plan.DataEncryptionKeyId);
        }

        CheckLength(length);
        return plan;
    }

    /// <summary>Throws when an input is over <see cref="MaxDocumentLength"/>.</summary>
    private protected void CheckLength(int length)
    {
        if (length > MaxDocumentLength)
        {
            JsonErrors.ThrowDocumentTooLarge(MaxDocumentLength);
        }
    }

    private protected static FeedPageDecryptionOptions DefaultFeedOptions => s_defaultFeedOptions;
}
