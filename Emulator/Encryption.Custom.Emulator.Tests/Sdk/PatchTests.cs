namespace Encryption.Custom.Emulator.Tests.Sdk;

public sealed class PatchTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private async Task<(Container Container, TestDocument Document)> CreateAsync(string name, int value)
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);
        TestDocument document = TestDocument.Create(name: name, score: value);
        await container.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);
        return (container, document);
    }

    [Fact]
    public async Task PatchItem_WithoutCondition_AppliesEveryOperation()
    {
        (Container container, TestDocument document) = await CreateAsync("Alpha", 10);

        ItemResponse<TestDocument> patched = await container.PatchItemAsync<TestDocument>(
            document.Id,
            document.PartitionKey,
            [PatchOperation.Set("/name", "Gamma"), PatchOperation.Increment("/score", 5)],
            cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.OK, patched.StatusCode);
        Assert.Equal(document with { Name = "Gamma", Score = 15 }, patched.Resource);
        ItemResponse<TestDocument> read = await container.ReadItemAsync<TestDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.Equal(patched.Resource, read.Resource);
        Assert.Equal(patched.ETag, read.ETag);
    }

    [Fact]
    public async Task PatchItem_ConditionMet_AppliesPatch()
    {
        // Mixed case in both the property value and the literal: the condition must be evaluated as written.
        (Container container, TestDocument document) = await CreateAsync("MixedCase", 1);

        ItemResponse<TestDocument> patched = await container.PatchItemAsync<TestDocument>(
            document.Id,
            document.PartitionKey,
            [PatchOperation.Replace("/score", 2)],
            new PatchItemRequestOptions { FilterPredicate = "FROM c WHERE c.name = 'MixedCase' AND c.score = 1" },
            Ct);

        Assert.Equal(HttpStatusCode.OK, patched.StatusCode);
        Assert.Equal(2, patched.Resource.Score);
    }

    [Fact]
    public async Task PatchItem_ConditionNotMet_ThrowsPreconditionFailedAndKeepsItem()
    {
        (Container container, TestDocument document) = await CreateAsync("Alpha", 1);

        CosmosException ex = await Assert.ThrowsAsync<CosmosException>(() => container.PatchItemAsync<TestDocument>(
            document.Id,
            document.PartitionKey,
            [PatchOperation.Set("/name", "Changed")],
            new PatchItemRequestOptions { FilterPredicate = "FROM c WHERE c.score > 1" },
            Ct));

        Assert.Equal(HttpStatusCode.PreconditionFailed, ex.StatusCode);
        ItemResponse<TestDocument> read = await container.ReadItemAsync<TestDocument>(document.Id, document.PartitionKey, cancellationToken: Ct);
        Assert.Equal(document, read.Resource);
    }

    [Fact]
    public async Task PatchItem_StaleEtag_ThrowsPreconditionFailed()
    {
        (Container container, TestDocument document) = await CreateAsync("Alpha", 1);
        ItemResponse<TestDocument> first = await container.PatchItemAsync<TestDocument>(
            document.Id, document.PartitionKey, [PatchOperation.Increment("/score", 1)], cancellationToken: Ct);
        await container.PatchItemAsync<TestDocument>(
            document.Id, document.PartitionKey, [PatchOperation.Increment("/score", 1)], cancellationToken: Ct);

        CosmosException ex = await Assert.ThrowsAsync<CosmosException>(() => container.PatchItemAsync<TestDocument>(
            document.Id,
            document.PartitionKey,
            [PatchOperation.Increment("/score", 1)],
            new PatchItemRequestOptions { IfMatchEtag = first.ETag },
            Ct));

        Assert.Equal(HttpStatusCode.PreconditionFailed, ex.StatusCode);
    }

    [Fact]
    public async Task PatchItem_MissingItem_ThrowsNotFound()
    {
        Container container = await fixture.GetSharedContainerAsync(Ct);

        CosmosException ex = await Assert.ThrowsAsync<CosmosException>(() => container.PatchItemAsync<TestDocument>(
            Guid.NewGuid().ToString("N"), new PartitionKey("p0"), [PatchOperation.Set("/name", "x")], cancellationToken: Ct));

        Assert.Equal(HttpStatusCode.NotFound, ex.StatusCode);
    }
}
