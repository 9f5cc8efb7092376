
namespace Encryption.Custom.Json.Streaming;

/// <summary>One document found by the scan: its extent, its properties, and (once prepared) its metadata.</summary>
internal struct DocumentRecord
{
    /// <summary>The opening brace.</summary>
    public int Start;

    /// <summary>Just after the closing brace.</summary>
    public int End;

    /// <summary>Its position in a feed page's <c>Documents</c> array (0 for a single document).</summary>
    public int Index;

    /// <summary>Its first property in the scan's property list.</summary>
    public int FirstProperty;

    public int PropertyCount;

    /// <summary>The first <c>_ei</c> property (absolute property index), or -1.</summary>
    public int EnvelopeProperty;

    /// <summary><c>_ei</c> appears more than once.</summary>
    public bool DuplicateEnvelope;

    /// <summary>The <c>id</c> property when it is a string, or -1.</summary>
    public int IdProperty;

    // Filled in by EnvelopeReader.
    public EnvelopeFormat Format;
    public string? KeyId;
    public string? Algorithm;

    /// <summary>The <c>_ed</c> string token (quotes included), or -1.</summary>
    public int EncryptedDataStart;

    public int EncryptedDataEnd;
    public bool EncryptedDataEscaped;
}
