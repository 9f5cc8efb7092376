using Encryption.Custom.Tests.TestSupport;

namespace Encryption.Custom.Tests.Json;

/// <summary><see cref="FeedPageTests"/> with the reference (BCL oracle) key.</summary>
public sealed class ReferenceKeyFeedPageTests() : FeedPageTests(TestKeyKind.Reference);
