namespace Encryption.Custom.Json.Errors;

/// <summary>Why an encrypted value could not be decoded (authentication failures throw instead).</summary>
internal enum EncryptedValueStatus
{
    /// <summary>Decoded and decrypted.</summary>
    Valid = 0,

    /// <summary>The text is not standard padded base64, or decodes to nothing.</summary>
    InvalidBase64,

    /// <summary>The type marker is not one of 2..7.</summary>
    UnknownMarker,

    /// <summary>The plaintext length does not fit the marker (scalars are 8 bytes).</summary>
    InvalidLengthForMarker,

    /// <summary>The cell failed authentication (wrong key, tampered or truncated): one status whichever check failed.</summary>
    NotAuthentic,

    /// <summary>A format 3 cell stands where the document's binding requires a bound cell.</summary>
    NotBound,

    /// <summary>A bound cell does not verify at this document, path and container: moved, copied or corrupted.</summary>
    BindingMismatch,
}
