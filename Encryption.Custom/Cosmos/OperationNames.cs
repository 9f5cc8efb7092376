using Encryption.Custom.Diagnostics;

namespace Encryption.Custom.Cosmos;

/// <summary>The operation names recorded in telemetry (constants: never user data).</summary>
internal static class OperationNames
{
    public const string CreateItem = "CreateItem";
    public const string CreateItemStream = "CreateItemStream";
    public const string ReplaceItem = "ReplaceItem";
    public const string ReplaceItemStream = "ReplaceItemStream";
    public const string UpsertItem = "UpsertItem";
    public const string UpsertItemStream = "UpsertItemStream";
    public const string ReadItem = "ReadItem";
    public const string ReadItemStream = "ReadItemStream";
    public const string DeleteItem = "DeleteItem";
    public const string DeleteItemStream = "DeleteItemStream";
    public const string PatchItem = "PatchItem";
    public const string PatchItemStream = "PatchItemStream";
    public const string ReadManyItems = "ReadManyItems";
    public const string ReadManyItemsStream = "ReadManyItemsStream";
    public const string QueryReadNext = "Query.ReadNext";
    public const string ChangeFeedReadNext = "ChangeFeed.ReadNext";
    public const string ChangeFeedProcessorChanges = "ChangeFeedProcessor.Changes";
    public const string TransactionalBatchExecute = "TransactionalBatch.Execute";
    public const string DecryptableItemGetItem = "DecryptableItem.GetItem";

    /// <summary>
    /// The name of a typed (not stream) write of <paramref name="kind"/>: a function of the kind, so the two cannot
    /// disagree on their way through the write path.
    /// </summary>
    public static string Typed(ItemWrite kind) => kind switch
    {
        ItemWrite.Create => CreateItem,
        ItemWrite.Replace => ReplaceItem,
        _ => UpsertItem,
    };

    /// <summary>
    /// Records a failure in an exception filter (<c>catch (Exception e) when (RecordFailure(t, e))</c>): returns
    /// <see langword="false"/>, so the exception continues unchanged without being caught.
    /// </summary>
    public static bool RecordFailure(OperationTelemetry? telemetry, Exception exception)
    {
        telemetry?.Fail(exception);
        return false;
    }
}
