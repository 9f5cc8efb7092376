namespace Encryption.Custom;

/// <summary>Classifies an <see cref="EncryptionException"/> so callers can react without parsing messages.</summary>
public enum EncryptionErrorKind
{
    /// <summary>Not classified.</summary>
    Unspecified = 0,

    /// <summary>
    /// A ciphertext failed authentication or decoding: wrong key, tampered or truncated value, bad padding.
    /// Deliberately not more specific, so that the error cannot serve as an oracle.
    /// </summary>
    InvalidCipherText,

    /// <summary>The document is not well-formed JSON, is not a JSON object at its root, or is truncated.</summary>
    MalformedDocument,

    /// <summary>The encryption metadata names a format version or algorithm this library does not support.</summary>
    UnsupportedFormat,

    /// <summary>An encrypted value is not valid (bad base64, unknown type marker, wrong length for its type).</summary>
    InvalidEncryptedValue,

    /// <summary>The requested paths or options are invalid (for example <c>/id</c>, a repeated path, a nested path).</summary>
    InvalidOptions,

    /// <summary>The document exceeds a configured limit (size or depth), or a value cannot be represented.</summary>
    LimitExceeded,

    /// <summary>A data encryption key could not be found, unwrapped or used.</summary>
    KeyUnavailable,
}
