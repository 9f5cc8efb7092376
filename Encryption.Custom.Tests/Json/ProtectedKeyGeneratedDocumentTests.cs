using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary><see cref="GeneratedDocumentTests"/> with the library's protected key.</summary>
public sealed class ProtectedKeyGeneratedDocumentTests() : GeneratedDocumentTests(TestKeyKind.Protected);
