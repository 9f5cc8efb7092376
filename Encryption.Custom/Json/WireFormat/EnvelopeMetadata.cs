namespace Encryption.Custom.Json.WireFormat;

/// <summary>
/// The encryption metadata (<c>_ei</c>) of a document, read without decrypting anything: which key, which format
/// and which properties are encrypted. Read by <see cref="Streaming.EnvelopeReader.ReadMetadata"/>, with the rules
/// decryption applies; patch and batch use it to encrypt new values the way the stored document is, telemetry to
/// count paths (migration and the tool's <c>inspect</c> read documents through <c>Json/Inspection/</c>).
/// </summary>
internal sealed class EnvelopeMetadata
{
    private EnvelopeMetadata(long formatVersion, string dataEncryptionKeyId, string algorithm, List<string> paths)
    {
        FormatVersion = formatVersion;
        DataEncryptionKeyId = dataEncryptionKeyId;
        Algorithm = algorithm;
        Paths = paths;
    }

    /// <summary>Metadata as a write or patch leaves it (for later operations of the same batch), or as read.</summary>
    public static EnvelopeMetadata Create(long formatVersion, string dataEncryptionKeyId, string algorithm, List<string> paths) =>
        new(formatVersion, dataEncryptionKeyId, algorithm, paths);

    /// <summary>The format version (<c>_ef</c>): 3, or 2 for the legacy format.</summary>
    public long FormatVersion { get; }

    /// <summary>The data encryption key id (<c>_en</c>).</summary>
    public string DataEncryptionKeyId { get; }

    /// <summary>The algorithm (<c>_ea</c>).</summary>
    public string Algorithm { get; }

    /// <summary>The encrypted paths (<c>_ep</c>), in stored order.</summary>
    public List<string> Paths { get; }
}
