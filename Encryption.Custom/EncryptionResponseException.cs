using System.Globalization;
using System.Net;

namespace Encryption.Custom;

/// <summary>
/// A write the service applied whose answer could not be decrypted (truncated, altered in transit, or under a key
/// this client cannot use): unlike every other <see cref="EncryptionException"/>, the request was not refused.
/// </summary>
/// <remarks>
/// <para>
/// Thrown by the encryption container's create, replace, upsert and patch (typed and stream APIs alike), and by a
/// transactional batch's <c>ExecuteAsync</c> when the batch holds a write, when the service answered with success and
/// only reading the answer failed. For a batch (all or nothing) every operation was applied:
/// <see cref="OperationIndex"/> says whose result could not be decrypted and <see cref="OperationETags"/> holds each
/// operation's ETag. <see cref="WriteApplied"/> is then
/// <see langword="true"/>, and <see cref="StatusCode"/>, <see cref="ETag"/> and <see cref="RequestCharge"/> are the
/// service's. Retrying a create fails with a conflict and retrying an increment patch counts twice: read the item
/// (or compare its ETag) to learn its stored state instead (docs/container.md, "Writes that were applied").
/// </para>
/// <para>
/// <see cref="EncryptionException.Kind"/> and the inner exception say why the answer was unreadable; the message
/// says so too and, like every message of the library, holds no key bytes, plaintext or ciphertext.
/// </para>
/// </remarks>
public sealed class EncryptionResponseException : EncryptionException
{
    /// <summary>Creates the exception for an applied write whose answer failed to decrypt.</summary>
    /// <param name="statusCode">The service's status code.</param>
    /// <param name="etag">The ETag of the stored item, when the answer carried one.</param>
    /// <param name="requestCharge">The request charge of the write.</param>
    /// <param name="cause">Why the answer could not be decrypted.</param>
    public EncryptionResponseException(HttpStatusCode statusCode, string? etag, double requestCharge, EncryptionException cause)
        : base(
            (cause ?? throw new ArgumentNullException(nameof(cause))).Kind,
            string.Create(
                CultureInfo.InvariantCulture,
                $"The write was applied (status {(int)statusCode}{(etag is null ? string.Empty : $", ETag {etag}")}) but its answer could not be decrypted: {cause.Message} Do not retry a create or an increment; read the item to see what is stored."),
            cause.DataEncryptionKeyId,
            cause.Path,
            cause)
    {
        StatusCode = statusCode;
        ETag = etag;
        RequestCharge = requestCharge;
    }

    // A transactional batch that committed: the batch's status and charge, the failed operation's ETag, every ETag.
    internal EncryptionResponseException(HttpStatusCode statusCode, double requestCharge, int operationIndex, IReadOnlyList<string?> operationETags, EncryptionException cause)
        : base(
            cause.Kind,
            string.Create(
                CultureInfo.InvariantCulture,
                $"The transactional batch was applied (status {(int)statusCode}, {operationETags.Count} operation(s)) but the result of operation {operationIndex}{(operationETags[operationIndex] is { } etag ? $" (ETag {etag})" : string.Empty)} could not be decrypted: {cause.Message} Do not retry the batch (a create would conflict, an increment would count twice); read the items to see what is stored."),
            cause.DataEncryptionKeyId,
            cause.Path,
            cause)
    {
        StatusCode = statusCode;
        ETag = operationETags[operationIndex];
        RequestCharge = requestCharge;
        OperationIndex = operationIndex;
        OperationETags = operationETags;
    }

    /// <summary>Always <see langword="true"/>: the service applied the write; only its answer was unreadable.</summary>
    public bool WriteApplied { get; } = true;

    /// <summary>
    /// For a transactional batch, the index (in the order operations were added) of the operation whose result could
    /// not be decrypted; <see langword="null"/> for a point write.
    /// </summary>
    public int? OperationIndex { get; }

    /// <summary>
    /// For a transactional batch, each operation's ETag from its result, in the order operations were added
    /// (<see langword="null"/> where a result carried none, for example a delete); empty for a point write.
    /// </summary>
    public IReadOnlyList<string?> OperationETags { get; } = [];

    /// <summary>The service's status code for the write (201 when the write created the item, 200 otherwise; a batch's own status for a batch).</summary>
    public HttpStatusCode StatusCode { get; }

    /// <summary>The stored item's ETag from the answer's headers (for a batch, that of the operation at <see cref="OperationIndex"/>), or <see langword="null"/> when it carried none.</summary>
    public string? ETag { get; }

    /// <summary>The request units the write (or the whole batch) was charged.</summary>
    public double RequestCharge { get; }
}
