using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary><see cref="ProcessorContractTests"/> with the reference (BCL oracle) key.</summary>
public sealed class ReferenceKeyProcessorContractTests() : ProcessorContractTests(TestKeyKind.Reference);
