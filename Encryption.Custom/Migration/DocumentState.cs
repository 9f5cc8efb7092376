namespace Encryption.Custom.Migration;

/// <summary>Where one stored document stands against a <see cref="MigrationTarget"/> (ids and flags only, never values).</summary>
/// <param name="Encrypted">Whether the document carries encryption metadata.</param>
/// <param name="KeyId">The data encryption key it names, when encrypted.</param>
/// <param name="FormatVersion">Its format (<c>_ef</c>: 2, 3 or 101), 0 when not encrypted.</param>
/// <param name="HasPlaintext">Whether a policy position holds a non-null plaintext value.</param>
/// <param name="HasOtherPaths">Whether its metadata lists a path outside the policy (or uses the legacy whole-document format).</param>
/// <param name="InTarget">Whether the document is already in the target state (nothing to rewrite).</param>
/// <param name="HasUnlistedCipherText">Whether a policy position holds a value shaped like ciphertext that the metadata does not list (reported, never rewritten).</param>
internal readonly record struct DocumentState(bool Encrypted, string? KeyId, int FormatVersion, bool HasPlaintext, bool HasOtherPaths, bool InTarget, bool HasUnlistedCipherText = false)
{
    /// <summary>
    /// Whether an encrypted document's query tokens (<c>_q</c>) are not what the target declares: missing, for a path
    /// the target does not declare, or (checked with the key) not those of the values. Such a document is outside the
    /// target state and rewritten, which writes the tokens anew.
    /// </summary>
    public bool HasStaleQueryTokens { get; init; }
}
