using Encryption.Custom.Json.Rules;
using Encryption.Custom.Processing;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Patch;

/// <summary>
/// What a container encrypts patch values with and judges them by: its compiled policy, its processor (whose limits
/// apply to values), the encryptor that supplies keys, and the client's serializer (values as the client writes
/// them). They belong to the container, not to one patch, so they travel together from the container (or a batch)
/// to <see cref="PatchRewriter"/> and on to each value.
/// </summary>
/// <param name="Rules">The container's compiled policy, or <see langword="null"/>.</param>
/// <param name="Processor">The container's processor (its limits apply to values).</param>
/// <param name="Encryptor">Supplies the key.</param>
/// <param name="Serializer">Serializes values as the client does.</param>
internal readonly record struct PatchCrypto(PolicyRuleSet? Rules, EncryptionProcessor Processor, Encryptor Encryptor, CosmosSerializer Serializer);
