using Encryption.Custom.Json.Rules;
using Encryption.Custom.Json.WireFormat;

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

    /// <summary>The first <c>_ex</c> property (the format 101 anchor), or -1.</summary>
    public int AnchorProperty;

    /// <summary><c>_ex</c> appears more than once.</summary>
    public bool DuplicateAnchor;

    /// <summary>The first <c>_q</c> property (query tokens, format 101 with <c>qt</c>), or -1.</summary>
    public int QueryTokensProperty;

    /// <summary><c>_q</c> appears more than once.</summary>
    public bool DuplicateQueryTokens;

    /// <summary>The <c>id</c> property when it is a string, or -1.</summary>
    public int IdProperty;

    // Filled in by EnvelopeReader.
    public EnvelopeFormat Format;
    public string? KeyId;
    public string? Algorithm;

    /// <summary>Format 101: the nested selectors <c>_ep</c> lists (null when it lists none, and in other formats).</summary>
    public DocumentSelectors? Selectors;

    /// <summary>Whether <c>_ev.crit</c> requires <c>bind</c>: every randomized cell is bound to this document.</summary>
    public bool Bound;

    /// <summary>Whether <c>_ev.crit</c> requires <c>commit</c>: the anchor holds the document commitment.</summary>
    public bool Committed;

    /// <summary>Whether <c>_ev.crit</c> requires <c>qt</c>: <c>_q</c> holds the query tokens, removed on read and verified by strict readers.</summary>
    public bool HasQueryTokens;

    /// <summary>The <c>_ed</c> string token (quotes included), or -1.</summary>
    public int EncryptedDataStart;

    public int EncryptedDataEnd;
    public bool EncryptedDataEscaped;
}
