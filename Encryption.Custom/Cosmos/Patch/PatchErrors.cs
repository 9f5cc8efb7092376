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
}
