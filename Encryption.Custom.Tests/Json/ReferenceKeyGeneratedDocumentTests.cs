using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary><see cref="GeneratedDocumentTests"/> with the reference (BCL oracle) key.</summary>
public sealed class ReferenceKeyGeneratedDocumentTests() : GeneratedDocumentTests(TestKeyKind.Reference);
