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
    /// What to encrypt and with which data encryption key. Default <see langword="null"/>: a write sends the item
    /// unencrypted (a read still decrypts whatever is encrypted). Ignored on reads.
    /// </summary>
    public EncryptionOptions? EncryptionOptions { get; set; }
}
