using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// One patch of one document as the container handles it once it has been checked: the stored id and partition key
/// (mapped by the lookups), the caller's operations and options, and the encryption options they resolve to. It stays
/// the same over every attempt (only the document read changes), and travels whole to the conditional replace that
/// stands in for a patch the service cannot be sent.
/// </summary>
/// <param name="Id">The stored id.</param>
/// <param name="PartitionKey">The stored partition key.</param>
/// <param name="Operations">The caller's operations.</param>
/// <param name="RequestOptions">The caller's request options.</param>
/// <param name="Requested">The encryption options the request resolves to, or <see langword="null"/>.</param>
internal readonly record struct PatchRequest(
    string Id,
    PartitionKey PartitionKey,
    IReadOnlyList<PatchOperation> Operations,
    PatchItemRequestOptions? RequestOptions,
    EncryptionOptions? Requested);
