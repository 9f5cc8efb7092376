namespace Encryption.Custom;

/// <summary>What was decrypted in a document, and with which data encryption key.</summary>
public sealed class DecryptionInfo
{
    /// <summary>Creates the information.</summary>
    /// <param name="pathsDecrypted">The paths whose values were decrypted.</param>
    /// <param name="dataEncryptionKeyId">The data encryption key id.</param>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    public DecryptionInfo(IReadOnlyList<string> pathsDecrypted, string dataEncryptionKeyId)
    {
        ArgumentNullException.ThrowIfNull(pathsDecrypted);
        ArgumentNullException.ThrowIfNull(dataEncryptionKeyId);
        PathsDecrypted = pathsDecrypted;
        DataEncryptionKeyId = dataEncryptionKeyId;
    }

    /// <summary>The paths (such as <c>/ssn</c>) whose values were decrypted, in the order of the document's metadata.</summary>
    public IReadOnlyList<string> PathsDecrypted { get; }

    /// <summary>The id of the data encryption key the values were encrypted with.</summary>
    public string DataEncryptionKeyId { get; }
}
