using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary><see cref="DecryptionErrorTests"/> with the library's protected key.</summary>
public sealed class ProtectedKeyDecryptionErrorTests() : DecryptionErrorTests(TestKeyKind.Protected);
