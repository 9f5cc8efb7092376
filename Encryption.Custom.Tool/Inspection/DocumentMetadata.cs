namespace Encryption.Custom.Tool.Inspection;

/// <summary>The encryption metadata (<c>_ei</c>) of a document, as <c>inspect</c> prints it.</summary>
/// <param name="FormatVersion">The <c>_ef</c> value: 3, 101 for the extended format, or 2 for the legacy format.</param>
/// <param name="Algorithm">The <c>_ea</c> value.</param>
/// <param name="DataEncryptionKeyId">The <c>_en</c> value.</param>
/// <param name="Paths">The <c>_ep</c> paths, in their order (format 101: the top-level ones, then the nested selectors; not the anchor).</param>
/// <param name="Bound">Format 101: whether its randomized values are bound to the document (<c>bind</c> in <c>_ev.crit</c>).</param>
internal sealed record DocumentMetadata(int FormatVersion, string Algorithm, string DataEncryptionKeyId, IReadOnlyList<string> Paths, bool Bound = false);
