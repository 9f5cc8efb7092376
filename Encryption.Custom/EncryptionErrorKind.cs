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

    /// <summary>
    /// A document read through a container whose <see cref="ContainerEncryptionPolicy"/> forbids plaintext holds a
    /// non-null plaintext value in one of the policy's paths (or lacks <c>_ei</c> while such a path is present).
    /// The message names the document id and the path, never the value.
    /// </summary>
    PlaintextForbidden,

    /// <summary>
    /// A document read through a container with a <see cref="ContainerEncryptionPolicy"/> is encrypted with a data
    /// encryption key the policy neither uses nor lists in <see cref="ContainerEncryptionPolicy.AcceptedDataEncryptionKeyIds"/>
    /// (the key is not loaded).
    /// </summary>
    KeyNotAccepted,

    /// <summary>
    /// A value in one of a <see cref="ContainerEncryptionPolicy"/>'s paths is a format 3 encrypted value that one of
    /// the policy's keys authenticates, but the document's metadata does not list it (for example a writer without
    /// encryption replaced the document and dropped <c>_ei</c>), or any such value in a document without <c>_ei</c> that
    /// still carries format 101's anchor <c>_ex</c> (its envelope metadata is missing; bound cells cannot be
    /// authenticated without it): returning it would hand out ciphertext as the value,
    /// and encrypting it again would bury it. The message names the document id and the path, never the value.
    /// </summary>
    UnlistedCipherText,

    /// <summary>
    /// A bound encrypted value (one whose authentication covers its document's id, partition key, container and its own
    /// path) does not verify where it was read: it was moved or copied from another document, path or container, or it
    /// is corrupted (the two cannot be told apart), or a value that is not bound stands where a bound one is required.
    /// The message names the document id and the path, never the value.
    /// </summary>
    CellBindingMismatch,
}
