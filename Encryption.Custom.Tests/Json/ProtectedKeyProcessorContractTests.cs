using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary><see cref="ProcessorContractTests"/> with the library's protected key.</summary>
public sealed class ProtectedKeyProcessorContractTests() : ProcessorContractTests(TestKeyKind.Protected);
