namespace Encryption.Custom.Cosmos.Feeds;

/// <summary>What a feed iterator reads, which names its telemetry.</summary>
internal enum FeedKind
{
    Query,
    ChangeFeed,
}
