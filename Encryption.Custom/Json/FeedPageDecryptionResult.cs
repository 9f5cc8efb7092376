namespace Encryption.Custom.Processing;

/// <summary>The outcome of decrypting one feed page.</summary>
public readonly struct FeedPageDecryptionResult : IEquatable<FeedPageDecryptionResult>
{
    /// <summary>Creates a result.</summary>
    /// <param name="documentCount">Elements in the page's <c>Documents</c> array.</param>
    /// <param name="decryptedCount">Documents that carried encryption metadata and were decrypted.</param>
    /// <param name="failures">Documents that could not be decrypted (empty unless per-item reporting is on).</param>
    /// <param name="decryptionContexts">Per-document contexts when requested, else <see langword="null"/>.</param>
    public FeedPageDecryptionResult(
        int documentCount,
        int decryptedCount,
        IReadOnlyList<FeedItemDecryptionFailure>? failures,
        IReadOnlyList<DecryptionContext?>? decryptionContexts)
    {
        DocumentCount = documentCount;
        DecryptedCount = decryptedCount;
        FailuresOrNull = failures;
        DecryptionContexts = decryptionContexts;
    }

    /// <summary>The number of elements in the page's <c>Documents</c> array (0 when the page has none).</summary>
    public int DocumentCount { get; }

    /// <summary>The number of documents that were encrypted and are now decrypted.</summary>
    public int DecryptedCount { get; }

    /// <summary>The documents that could not be decrypted and were left as they were (empty when none).</summary>
    public IReadOnlyList<FeedItemDecryptionFailure> Failures => FailuresOrNull ?? [];

    /// <summary>
    /// When <see cref="FeedPageDecryptionOptions.IncludeDecryptionContexts"/> was set: one entry per element of
    /// <c>Documents</c> (<see langword="null"/> for elements that were not decrypted); otherwise <see langword="null"/>.
    /// </summary>
    public IReadOnlyList<DecryptionContext?>? DecryptionContexts { get; }

    private IReadOnlyList<FeedItemDecryptionFailure>? FailuresOrNull { get; }

    /// <summary>Compares two results by their counts and list references.</summary>
    public static bool operator ==(FeedPageDecryptionResult left, FeedPageDecryptionResult right) => left.Equals(right);

    /// <summary>Compares two results by their counts and list references.</summary>
    public static bool operator !=(FeedPageDecryptionResult left, FeedPageDecryptionResult right) => !left.Equals(right);

    /// <inheritdoc/>
    public bool Equals(FeedPageDecryptionResult other) =>
        DocumentCount == other.DocumentCount
        && DecryptedCount == other.DecryptedCount
        && ReferenceEquals(FailuresOrNull, other.FailuresOrNull)
        && ReferenceEquals(DecryptionContexts, other.DecryptionContexts);

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is FeedPageDecryptionResult other && Equals(other);

    /// <inheritdoc/>
    public override int GetHashCode() => HashCode.Combine(DocumentCount, DecryptedCount, FailuresOrNull, DecryptionContexts);
}
