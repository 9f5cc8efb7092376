namespace Encryption.Custom.Processing;

/// <summary>A document of a feed page that could not be decrypted (with <see cref="FeedItemFailureMode.ReportPerItem"/>).</summary>
public sealed class FeedItemDecryptionFailure
{
    /// <summary>Creates the failure record.</summary>
    /// <param name="index">The document's position in the page's <c>Documents</c> array.</param>
    /// <param name="id">The document's <c>id</c>, when it has a string id.</param>
    /// <param name="exception">What went wrong.</param>
    /// <exception cref="ArgumentNullException"><paramref name="exception"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="index"/> is negative.</exception>
    public FeedItemDecryptionFailure(int index, string? id, EncryptionException exception)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(index);
        ArgumentNullException.ThrowIfNull(exception);
        Index = index;
        Id = id;
        Exception = exception;
    }

    /// <summary>The document's position in the page's <c>Documents</c> array (0-based).</summary>
    public int Index { get; }

    /// <summary>
    /// The document's <c>id</c> as stored, or <see langword="null"/> when it has no string id. When the container's
    /// policy encrypts ids this is the stored (encrypted) form, never the plaintext: the document failed to decrypt,
    /// so the plaintext is not trusted, and the stored id is what the container without encryption addresses it by to
    /// inspect or repair it (the error messages name the same form).
    /// </summary>
    public string? Id { get; }

    /// <summary>Why it failed (with the DEK id and path where known).</summary>
    public EncryptionException Exception { get; }
}
