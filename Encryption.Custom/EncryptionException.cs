namespace Encryption.Custom;

/// <summary>
/// The one exception type the library raises when encryption or decryption cannot be done: malformed or
/// unsupported input, a wrong or tampered value, a missing or unusable key.
/// </summary>
/// <remarks>
/// Messages name the data encryption key id and the JSON path where they are known. They never contain key
/// bytes, plaintext or ciphertext, and a failed authenticity check never says which check failed.
/// </remarks>
public class EncryptionException : Exception
{
    /// <summary>Creates an exception with a generic message.</summary>
    public EncryptionException()
        : this(EncryptionErrorKind.Unspecified, "Encryption or decryption failed.")
    {
    }

    /// <summary>Creates an exception with the given message.</summary>
    /// <param name="message">A message that carries no secret material.</param>
    public EncryptionException(string message)
        : this(EncryptionErrorKind.Unspecified, message)
    {
    }

    /// <summary>Creates an exception with the given message and cause.</summary>
    /// <param name="message">A message that carries no secret material.</param>
    /// <param name="innerException">The cause.</param>
    public EncryptionException(string message, Exception? innerException)
        : this(EncryptionErrorKind.Unspecified, message, innerException: innerException)
    {
    }

    /// <summary>Creates an exception describing what failed, for which key and where.</summary>
    /// <param name="kind">What went wrong.</param>
    /// <param name="message">A message that carries no secret material.</param>
    /// <param name="dataEncryptionKeyId">The data encryption key id, when known.</param>
    /// <param name="path">The JSON path (for example <c>/ssn</c>), when known.</param>
    /// <param name="innerException">The cause, when it carries no secret material.</param>
    public EncryptionException(
        EncryptionErrorKind kind,
        string message,
        string? dataEncryptionKeyId = null,
        string? path = null,
        Exception? innerException = null)
        : base(message, innerException)
    {
        Kind = kind;
        DataEncryptionKeyId = dataEncryptionKeyId;
        Path = path;
    }

    /// <summary>What went wrong.</summary>
    public EncryptionErrorKind Kind { get; }

    /// <summary>The id of the data encryption key involved, or <see langword="null"/> when not known.</summary>
    public string? DataEncryptionKeyId { get; }

    /// <summary>The JSON path involved (for example <c>/ssn</c>), or <see langword="null"/> when not known.</summary>
    public string? Path { get; }
}
