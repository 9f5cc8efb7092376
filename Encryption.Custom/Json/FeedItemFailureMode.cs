namespace Encryption.Custom.Processing;

/// <summary>What happens when one document of a feed page cannot be decrypted.</summary>
public enum FeedItemFailureMode
{
    /// <summary>The whole page fails with an <see cref="EncryptionException"/> naming the document's id. The default.</summary>
    FailPage = 0,

    /// <summary>
    /// The document is left exactly as it was (still encrypted) in the output page and reported in
    /// <see cref="FeedPageDecryptionResult.Failures"/>; the other documents are decrypted.
    /// </summary>
    ReportPerItem = 1,
}
