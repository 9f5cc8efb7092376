using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>
/// Options for one create, replace or upsert operation of a transactional batch on an encryption container:
/// <see cref="EncryptionOptions"/> chooses what the operation encrypts.
/// </summary>
public class EncryptionTransactionalBatchItemRequestOptions : TransactionalBatchItemRequestOptions
{
    /// <summary>
    /// What to encrypt, with which data encryption key and which JSON processor. Default <see langword="null"/>:
    /// the item is sent unencrypted.
    /// </summary>
    public EncryptionOptions? EncryptionOptions { get; set; }
}
