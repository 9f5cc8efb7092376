namespace Encryption.Custom;

/// <summary>
/// The names of the library's activity source, meter, instruments and tags (documented in docs/diagnostics.md).
/// Tags never carry key bytes, plaintext or ciphertext: only ids, counts, sizes, timings and error kinds.
/// </summary>
public static class DiagnosticNames
{
    /// <summary>The <c>ActivitySource</c> and <c>Meter</c> name: <c>Encryption.Custom</c>.</summary>
    public const string SourceName = "Encryption.Custom";

    /// <summary>Prefix of every activity name (<c>Encryption.Custom.CreateItem</c>, ...).</summary>
    public const string ActivityPrefix = "Encryption.Custom.";

    /// <summary>Counter: container operations started, tagged with <see cref="OperationTag"/>.</summary>
    public const string Operations = "encryption.custom.operations";

    /// <summary>Counter: container operations that threw, tagged with <see cref="OperationTag"/> and <see cref="ErrorTypeTag"/>.</summary>
    public const string OperationFailures = "encryption.custom.operation.failures";

    /// <summary>Histogram (s): whole container operations, service round trips included, tagged with <see cref="OperationTag"/>.</summary>
    public const string OperationDuration = "encryption.custom.operation.duration";

    /// <summary>Histogram (s): encrypting one request body (document or patch value), tagged with <see cref="ProcessorTag"/>.</summary>
    public const string EncryptDuration = "encryption.custom.encrypt.duration";

    /// <summary>Histogram (s): decrypting one response body (document or feed page), tagged with <see cref="ProcessorTag"/>.</summary>
    public const string DecryptDuration = "encryption.custom.decrypt.duration";

    /// <summary>Counter (By): bytes of JSON given to encryption (the plaintext documents' sizes).</summary>
    public const string EncryptedBytes = "encryption.custom.encrypt.bytes";

    /// <summary>Counter (By): bytes of JSON given to decryption (the stored documents' and pages' sizes).</summary>
    public const string DecryptedBytes = "encryption.custom.decrypt.bytes";

    /// <summary>Counter: documents of feed pages that could not be decrypted (surfaced per item or failing the page).</summary>
    public const string DocumentFailures = "encryption.custom.document.failures";

    /// <summary>Counter: data encryption key lookups answered from the cache.</summary>
    public const string KeyCacheHits = "encryption.custom.key_cache.hits";

    /// <summary>Counter: data encryption key lookups that had to load (read and unwrap) the key.</summary>
    public const string KeyCacheMisses = "encryption.custom.key_cache.misses";

    /// <summary>Counter: calls to a key-encryption-key provider to unwrap a data encryption key, tagged with <see cref="OutcomeTag"/>.</summary>
    public const string KeyUnwraps = "encryption.custom.key_unwraps";

    /// <summary>Counter: encrypted documents read through a container with an encryption policy, tagged with <see cref="DataEncryptionKeyIdTag"/> (shows when a rotation's previous key is no longer read).</summary>
    public const string PolicyReads = "encryption.custom.policy.reads";

    /// <summary>Counter: documents read through a container with an encryption policy that held plaintext in a policy path (refused or, in the read-both modes, accepted).</summary>
    public const string PlaintextDocuments = "encryption.custom.policy.plaintext_documents";

    /// <summary>Counter: paths a write was asked to encrypt that the document did not hold (absent or null), so were not encrypted.</summary>
    public const string AbsentPaths = "encryption.custom.encrypt.absent_paths";

    /// <summary>Counter: documents handled by an <see cref="EncryptionMigrationJob"/>, tagged with <see cref="OutcomeTag"/> (<c>rewritten</c>, <c>skipped</c>, <c>failed</c>, <c>conflict</c>).</summary>
    public const string MigrationDocuments = "encryption.custom.migration.documents";

    /// <summary>Counter: request units charged to <see cref="EncryptionMigrationJob"/> instances.</summary>
    public const string MigrationRequestUnits = "encryption.custom.migration.request_units";

    /// <summary>Tag: the container operation (<c>CreateItem</c>, <c>Query.ReadNext</c>, ...).</summary>
    public const string OperationTag = "encryption.operation";

    /// <summary>Tag: the Cosmos DB container id.</summary>
    public const string ContainerTag = "db.cosmosdb.container";

    /// <summary>Tag: the processor (<c>Stream</c> or <c>Newtonsoft</c>).</summary>
    public const string ProcessorTag = "encryption.processor";

    /// <summary>Tag (activities): the data encryption key id(s) involved, comma-separated.</summary>
    public const string DataEncryptionKeyIdTag = "encryption.dek_id";

    /// <summary>Tag (activities): properties encrypted by the operation.</summary>
    public const string PropertiesEncryptedTag = "encryption.properties.encrypted";

    /// <summary>Tag (activities): properties decrypted by the operation.</summary>
    public const string PropertiesDecryptedTag = "encryption.properties.decrypted";

    /// <summary>Tag (activities): documents decrypted by the operation (point reads count 1).</summary>
    public const string DocumentsDecryptedTag = "encryption.documents.decrypted";

    /// <summary>Tag (activities): time spent encrypting, in milliseconds.</summary>
    public const string EncryptMillisecondsTag = "encryption.encrypt.duration_ms";

    /// <summary>Tag (activities): time spent decrypting, in milliseconds.</summary>
    public const string DecryptMillisecondsTag = "encryption.decrypt.duration_ms";

    /// <summary>Tag (activities): the service's HTTP status code.</summary>
    public const string StatusCodeTag = "db.response.status_code";

    /// <summary>Tag: what failed — an <see cref="EncryptionErrorKind"/> name, <c>cosmos.&lt;status&gt;</c>, <c>canceled</c>, or an exception type name.</summary>
    public const string ErrorTypeTag = "error.type";

    /// <summary>Tag: <c>success</c> or <c>failure</c>.</summary>
    public const string OutcomeTag = "outcome";

    /// <summary>
    /// The <see cref="ErrorTypeTag"/> value for <paramref name="exception"/>, for an application's own logs and
    /// health reports in the library's vocabulary: an <see cref="EncryptionErrorKind"/> name, <c>cosmos.&lt;status&gt;</c>
    /// for a service error, <c>canceled</c>, or the exception's type name. Never the message, so never a secret.
    /// </summary>
    /// <exception cref="ArgumentNullException"><paramref name="exception"/> is null.</exception>
    public static string GetErrorType(Exception exception)
    {
        ArgumentNullException.ThrowIfNull(exception);
        return Diagnostics.ErrorTypes.Classify(exception);
    }
}
