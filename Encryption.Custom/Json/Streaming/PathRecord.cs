namespace Encryption.Custom.Json.Streaming;

/// <summary>One entry of a document's <c>_ep</c> list: the property name (without the leading '/').</summary>
internal struct PathRecord
{
    /// <summary>Offset of the unescaped name in the scan's name buffer.</summary>
    public int NameOffset;

    public int NameLength;

    /// <summary>The property the path names, or -1 when absent or null.</summary>
    public int PropertyIndex;

    /// <summary>Whether a property of this name was seen (null or not): a second one is refused.</summary>
    public bool Seen;
}
