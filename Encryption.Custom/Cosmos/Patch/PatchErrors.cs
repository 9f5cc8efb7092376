namespace Encryption.Custom.Cosmos.Patch;

/// <summary>Why a patch cannot be applied to encrypted properties (raised before the patch is sent).</summary>
internal static class PatchErrors
{
    public static EncryptionException Increment(string path, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch increments '{path}', which is encrypted: the service cannot add to ciphertext. Read, change and replace the value instead.", dataEncryptionKeyId, path);

    public static EncryptionException Nested(string path, string property, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch addresses '{path}' inside '{property}', which is encrypted as one value: patch '{property}' as a whole instead.", dataEncryptionKeyId, property);

    public static EncryptionException Move(string from, string path, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch moves '{from}' to '{path}', and one of them is encrypted: a move would leave ciphertext in a plain property or plaintext in an encrypted one.", dataEncryptionKeyId, path);

    public static EncryptionException Metadata(string path) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch addresses '{path}': the encryption metadata '_ei' is maintained by the encryption container and cannot be patched.", path: path);

    public static EncryptionException LegacyFormat(string path, string dataEncryptionKeyId) =>
        new(EncryptionErrorKind.UnsupportedFormat, $"The document is encrypted in format version 2, whose properties ('{path}' among them) are stored together in one value: replace the document instead of patching it.", dataEncryptionKeyId, path);

    public static EncryptionException AmbiguousEscape(string path, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch path '{path}' uses JSON Pointer escapes (~0, ~1) and names an encrypted property when read either with or without them: it is refused, since readers differ. Replace the document instead.", dataEncryptionKeyId, path);

    public static EncryptionException InvalidPath(string? path) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch path '{path}' is not a JSON pointer to a property.", path: path);

    public static EncryptionException EmptySegment(string path) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch path '{path}' has an empty segment: services read it differently (the bundled endpoint drops it and reaches the next property), so it could reach an encrypted property with a plaintext value. It is refused.", path: path);

    public static EncryptionException CaseVariant(string path, string encryptedPath, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch path '{path}' differs from the encrypted '{encryptedPath}' only in case: serializers bind both names to the same member, so the value would be read as '{encryptedPath}' in plaintext. Patch '{encryptedPath}' instead.", dataEncryptionKeyId, encryptedPath);

    public static EncryptionException KeyNotAccepted(string dataEncryptionKeyId) =>
        new(EncryptionErrorKind.KeyNotAccepted, $"The document is encrypted with the data encryption key '{dataEncryptionKeyId}', which the container's encryption policy does not accept: the patch is refused before the key is loaded (add it to AcceptedDataEncryptionKeyIds during a rotation).", dataEncryptionKeyId);

    public static EncryptionException UnlistedCipherText(string path, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.UnlistedCipherText, $"The document holds a value shaped like an encrypted value at '{path}' that its encryption metadata does not list (the metadata was lost): a patch would rewrite the metadata without it. The patch is refused; restore the metadata or replace the document.", dataEncryptionKeyId, path);

    public static EncryptionException InsideCell(string path, string selector, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch addresses '{path}', which lies inside the value selected by '{selector}': that value is encrypted as one cell, so nothing inside it can be patched. Patch the whole selected value instead.", dataEncryptionKeyId, path);

    public static EncryptionException SelectorCaseVariant(string path, string selector, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch path '{path}' meets the encrypted selector '{selector}' only when case is ignored: serializers bind both names to the same member, so the value would be read there in plaintext. Use the selector's spelling.", dataEncryptionKeyId, path);

    public static EncryptionException WildcardSegment(string path) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch path '{path}' has a '[]' segment: that is the array wildcard of selectors, not a JSON Pointer segment (services would read it as a property name). Name one element by its index.", path: path);

    public static EncryptionException Anchor(string path) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch addresses '{path}': the format anchor '_ex' is maintained by the encryption container and cannot be patched.", path: path);

    public static EncryptionException QueryTokens(string path) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch addresses '{path}': the query tokens in '_q' are maintained by the encryption container and cannot be patched.", path: path);

    public static EncryptionException BoundIdentity(string path, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch changes '{path}', which the container's values are bound to (the document id and partition key are covered by every bound cell's tag): the document's cells would no longer verify. Create a new document instead.", dataEncryptionKeyId, path);

    public static EncryptionException NotJson(string path, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The value of the patch operation on '{path}' is not one JSON value as serialized.", dataEncryptionKeyId, path);

    public static EncryptionException ReplaceNeeded(string reason, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch cannot be sent as a patch: {reason} The conditional replace that would apply it is turned off (EncryptionContainerOptions.PatchFallbackToReplace): replace the document instead.", dataEncryptionKeyId);

    public static EncryptionException FilterPredicateOnReplace(string reason, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch cannot be sent as a patch ({reason}) and carries a FilterPredicate, which a conditional replace cannot evaluate: it is refused rather than applied without its condition.", dataEncryptionKeyId);

    public static EncryptionException NestedSelector(string path, string selector, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch addresses '{path}', which is, contains or lies inside the nested encrypted selector '{selector}' that this container's options do not encrypt (the document was written under other options): replace the document instead.", dataEncryptionKeyId, path);

    public static EncryptionException ExtendedFormat(string path, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch changes the encrypted '{path}' of a document in format 101 (nested selectors or values bound to their document), which this container's options do not write: the metadata would be rewritten in format 3, so replace the document instead.", dataEncryptionKeyId, path);

    public static EncryptionException NoOptionsToReplace(string reason, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The patch cannot be sent as a patch: {reason} It would be applied as a replace, but no encryption options apply to this document (no container policy, none attached), so the replace would store it unencrypted. Attach the encryption options, or replace the document yourself.", dataEncryptionKeyId);

    public static EncryptionException ListedPaths(string why, string? dataEncryptionKeyId) =>
        new(EncryptionErrorKind.InvalidOptions, $"The stored document's encryption metadata lists paths a patch cannot be classified against: {why} Replace the document instead.", dataEncryptionKeyId);
}
