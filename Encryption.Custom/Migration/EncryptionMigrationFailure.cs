namespace Encryption.Custom;

/// <summary>
/// A document an <see cref="EncryptionMigrationJob"/> left as it was: its id, partition key and why. Never a value
/// of the document.
/// </summary>
public sealed class EncryptionMigrationFailure
{
    /// <summary>Creates the record.</summary>
    /// <param name="id">The document id.</param>
    /// <param name="partitionKey">The partition key as JSON (as <see cref="Microsoft.Azure.Cosmos.PartitionKey.ToString"/> writes it).</param>
    /// <param name="errorKind">The encryption error, or <see langword="null"/> when the service refused the write.</param>
    /// <param name="reason">Why, in words.</param>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    public EncryptionMigrationFailure(string id, string partitionKey, EncryptionErrorKind? errorKind, string reason)
    {
        ArgumentNullException.ThrowIfNull(id);
        ArgumentNullException.ThrowIfNull(partitionKey);
        ArgumentNullException.ThrowIfNull(reason);
        Id = id;
        PartitionKey = partitionKey;
        ErrorKind = errorKind;
        Reason = reason;
    }

    /// <summary>The document id.</summary>
    public string Id { get; }

    /// <summary>The partition key as JSON, for example <c>["p1"]</c>.</summary>
    public string PartitionKey { get; }

    /// <summary>The encryption error (tampered value, unknown or not accepted key, malformed metadata), or <see langword="null"/> when the service refused the write.</summary>
    public EncryptionErrorKind? ErrorKind { get; }

    /// <summary>Why the document was not migrated.</summary>
    public string Reason { get; }
}
