using System.Text.Json;

namespace Encryption.Custom.Json.Streaming;

/// <summary>Where one top-level property of a document lies in the input (byte offsets into the whole input).</summary>
internal struct PropertyRecord
{
    /// <summary>The name's opening quote.</summary>
    public int NameStart;

    /// <summary>The unescaped name: an offset into the input, or into the scan's name buffer when <see cref="NameInBuffer"/>.</summary>
    public int NameOffset;

    public int NameLength;

    /// <summary>The name was escaped in the input; its unescaped form is in the scan's name buffer.</summary>
    public bool NameInBuffer;

    /// <summary>The first byte of the value (the opening quote of a string).</summary>
    public int ValueStart;

    /// <summary>Just after the last byte of the value.</summary>
    public int ValueEnd;

    public JsonTokenType ValueType;

    /// <summary>The value is a string with escapes.</summary>
    public bool ValueEscaped;

    /// <summary>
    /// The value is an object or array with no whitespace between its tokens, as the fast scan saw it: its text is
    /// already the compact text a cell holds. False when not known (the reader's scan).
    /// </summary>
    public bool ValueCompact;

    /// <summary>The index of the <c>_ep</c> entry naming this property, or -1.</summary>
    public int PathIndex;

    /// <summary>
    /// In a format 101 document: the child of the document's selector tree (<see cref="DocumentRecord.Selectors"/>)
    /// whose nested selectors start at this property, or -1.
    /// </summary>
    public int NestedChild;
}
