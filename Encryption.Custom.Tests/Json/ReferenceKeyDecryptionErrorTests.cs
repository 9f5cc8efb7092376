using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary><see cref="DecryptionErrorTests"/> with the reference (BCL oracle) key.</summary>
public sealed class ReferenceKeyDecryptionErrorTests() : DecryptionErrorTests(TestKeyKind.Reference);
