namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// A read inside a transactional batch is conditional as a point read is: <c>IfNoneMatchEtag</c> with the
/// current etag is 304 (no body), <c>IfMatchEtag</c> with another etag is 412 and fails the batch (the other
/// operations 424, nothing applied); a batch that reads with a session token ahead of its range is refused with
/// 404, substatus 1002, as a point read is.
/// </summary>
public sealed class BatchReadConditionTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private const int ReadSessionNotAvailable = 1002;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task BatchRead_IfNoneMatchCurrentEtag_Is304_IfMatchOtherEtag_Is412AndFailsTheBatch()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument document = TestDocument.Create(pk: "batch-conditions-" + Guid.NewGuid().ToString("N"));
        ItemResponse<TestDocument> created = await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
        TestDocument other = TestDocument.Create(pk: document.Pk);

        using TransactionalBatchResponse notModified = await container.CreateTransactionalBatch(document.PartitionKey)
            .ReadItem(document.Id, new TransactionalBatchItemRequestOptions { IfNoneMatchEtag = created.ETag })
            .ReadItem(document.Id, new TransactionalBatchItemRequestOptions { IfMatchEtag = created.ETag })
            .ExecuteAsync(Ct);
        using TransactionalBatchResponse stale = await container.CreateTransactionalBatch(document.PartitionKey)
            .CreateItem(other)
            .ReadItem(document.Id, new TransactionalBatchItemRequestOptions { IfMatchEtag = "\"stale\"" })
            .ExecuteAsync(Ct);
        using ResponseMessage notStored = await container.ReadItemStreamAsync(other.Id, other.PartitionKey, cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.NotModified, notModified[0].StatusCode);
        Assert.Equal(created.ETag, notModified[0].ETag);
        Assert.Equal(HttpStatusCode.OK, notModified[1].StatusCode);
        Assert.False(stale.IsSuccessStatusCode);
        Assert.Equal(HttpStatusCode.FailedDependency, stale[0].StatusCode);
        Assert.Equal(HttpStatusCode.PreconditionFailed, stale[1].StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, notStored.StatusCode);
    }

    [Fact]
    public async Task BatchRead_WithASessionTokenAheadOfTheRange_Is404With1002()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument document = TestDocument.Create(pk: "batch-session-" + Guid.NewGuid().ToString("N"));
        ItemResponse<TestDocument> created = await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
        string ahead = SessionTokens.WithLsn(created.Headers.Session, SessionTokens.Lsn(created.Headers.Session) + 1);

        using TransactionalBatchResponse refused = await container.CreateTransactionalBatch(document.PartitionKey)
            .ReadItem(document.Id)
            .ExecuteAsync(new TransactionalBatchRequestOptions { AddRequestHeaders = headers => headers["x-ms-session-token"] = ahead }, Ct);
        using TransactionalBatchResponse served = await container.CreateTransactionalBatch(document.PartitionKey)
            .ReadItem(document.Id)
            .ExecuteAsync(new TransactionalBatchRequestOptions { AddRequestHeaders = headers => headers["x-ms-session-token"] = created.Headers.Session }, Ct);

        Assert.Equal(HttpStatusCode.NotFound, refused.StatusCode);
        Assert.Equal(ReadSessionNotAvailable.ToString(System.Globalization.CultureInfo.InvariantCulture), refused.Headers["x-ms-substatus"]);
        Assert.Equal(HttpStatusCode.OK, served.StatusCode);
    }
}
