namespace Encryption.Custom.Tool.Inspection;

/// <summary>The encryption metadata (<c>_ei</c>) of a document, as <c>inspect</c> prints it.</summary>
/// <param name="FormatVersion">The <c>_ef</c> value: 3, or 2 for the legacy format.</param>
/// <param name="Algorithm">The <c>_ea</c> value.</param>
/// <param name="DataEncryptionKeyId">The <c>_en</c> value.</param>
/// <param name="Paths">The <c>_ep</c> paths, in their order.</param>
internal sealed record DocumentMetadata(int FormatVersion, string Algorithm, string DataEncryptionKeyId, IReadOnlyList<string> Paths);
