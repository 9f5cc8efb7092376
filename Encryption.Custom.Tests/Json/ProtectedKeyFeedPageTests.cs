using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary><see cref="FeedPageTests"/> with the library's protected key.</summary>
public sealed class ProtectedKeyFeedPageTests() : FeedPageTests(TestKeyKind.Protected);
