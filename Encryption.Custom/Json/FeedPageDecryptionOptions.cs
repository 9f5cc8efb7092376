namespace Encryption.Custom.Processing;

/// <summary>How a feed page (query or change-feed response) is decrypted.</summary>
public sealed class FeedPageDecryptionOptions
{
    /// <summary>What a document that cannot be decrypted does to the page. Default <see cref="FeedItemFailureMode.FailPage"/>.</summary>
    public FeedItemFailureMode FailureMode { get; set; } = FeedItemFailureMode.FailPage;

    /// <summary>
    /// Whether to build a <see cref="DecryptionContext"/> for every document
    /// (<see cref="FeedPageDecryptionResult.DecryptionContexts"/>). Default <see langword="false"/>: nothing is allocated for it.
    /// </summary>
    public bool IncludeDecryptionContexts { get; set; }
}
