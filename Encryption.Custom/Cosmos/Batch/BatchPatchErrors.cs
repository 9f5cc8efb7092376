namespace Encryption.Custom.Cosmos.Batch;

/// <summary>Why a patch inside a transactional batch is refused before the batch is sent.</summary>
internal static class BatchPatchErrors
{
    /// <summary>
    /// A format 101 patch that a single patch would apply as a conditional replace: a batch is one transaction, so
    /// it cannot read, change and replace a document inside it.
    /// </summary>
    public static EncryptionException NeedsReplace(int index, string id, string reason, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch of '{id}' (operation {index} of the transactional batch) cannot be sent as a patch: {reason} A single PatchItemAsync would apply it as a conditional replace, which cannot run inside a batch (no read-modify-write within one transaction). The batch was not sent; patch that document on its own, or split the operations.", dataEncryptionKeyId);

    /// <summary>A format 101 patch that writes encrypted values when the document it would be written into is not known before the batch is sent.</summary>
    public static EncryptionException DocumentUnknown(int index, string id, string why, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch of '{id}' (operation {index} of the transactional batch) writes encrypted values, which are encrypted against the stored document, but {why} The batch was not sent; patch that document in a batch of its own, or with PatchItemAsync.", dataEncryptionKeyId);
}
