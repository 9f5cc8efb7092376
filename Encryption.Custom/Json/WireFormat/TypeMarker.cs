namespace Encryption.Custom.Json.WireFormat;

/// <summary>
/// The byte written in front of every encrypted cell (wire-format.md §3.2). It says how to turn the plaintext
/// back into a JSON value. It is not covered by the authentication tag (a format 3 weakness).
/// </summary>
internal enum TypeMarker : byte
{
    /// <summary>JSON null. Never written: null values are not encrypted. Rejected when read.</summary>
    Null = 1,

    /// <summary>A string; the plaintext is the UTF-8 of the unescaped string.</summary>
    String = 2,

    /// <summary>A number that is not an int64; the plaintext is the IEEE-754 double, 8 bytes little-endian.</summary>
    Double = 3,

    /// <summary>A number that parses fully as an int64; the plaintext is 8 bytes little-endian.</summary>
    Long = 4,

    /// <summary>true or false; the plaintext is the int64 1 or 0, 8 bytes little-endian.</summary>
    Boolean = 5,

    /// <summary>An array; the plaintext is its compact UTF-8 JSON text.</summary>
    Array = 6,

    /// <summary>An object; the plaintext is its compact UTF-8 JSON text.</summary>
    Object = 7,
}
