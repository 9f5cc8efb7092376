using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>
/// Request options for item operations on an encryption container (see
/// <see cref="EncryptionContainerExtensions.WithEncryptor"/>): <see cref="EncryptionOptions"/> chooses what a write
/// encrypts. Everything else is an <see cref="ItemRequestOptions"/> and reaches the service unchanged.
/// </summary>
public class EncryptionItemRequestOptions : ItemRequestOptions
{
    /// <summary>
    /// What to encrypt, with which data encryption key and which JSON processor. Default <see langword="null"/>:
    /// a write sends the item unencrypted (a read still decrypts whatever is encrypted). On a read, only
    /// <see cref="EncryptionOptions.JsonProcessor"/> is used (to pick the processor that decrypts the response).
    /// </summary>
    public EncryptionOptions? EncryptionOptions { get; set; }
}
