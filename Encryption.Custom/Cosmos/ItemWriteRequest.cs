using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos;

/// <summary>
/// One point write as the container's write path sends it to the inner container: which write, the stored id
/// (a replace's; already mapped by the lookups) and stored partition key, the caller's request options, and the
/// encryption options they resolve to (<see langword="null"/>: sent as it is). Typed, stream and patch-as-replace
/// writes all end in the same path; one value, so that path's signature is about the body, the telemetry and the
/// response.
/// </summary>
/// <param name="Kind">Create, replace or upsert.</param>
/// <param name="Id">The stored id (replace only; <see langword="null"/> otherwise).</param>
/// <param name="PartitionKey">The stored partition key.</param>
/// <param name="RequestOptions">The caller's request options.</param>
/// <param name="Encryption">The encryption options the request resolves to, or <see langword="null"/> to send the body as it is.</param>
internal readonly record struct ItemWriteRequest(ItemWrite Kind, string? Id, PartitionKey PartitionKey, ItemRequestOptions? RequestOptions, EncryptionOptions? Encryption);
