namespace Encryption.Custom.Emulator.Tests.Sdk;

/// <summary>
/// A client that encrypts names the container it means by resource id (<c>x-ms-cosmos-intended-collection-rid</c>
/// with <c>x-ms-cosmos-is-client-encrypted: True</c>). Cosmos DB answers 400, substatus 1024 (IncorrectContainerRid), when the
/// container under that name was deleted and recreated, and ignores the rid for requests not marked encrypted.
/// </summary>
public sealed class IntendedContainerTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private const int IncorrectContainerRid = 1024;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static ItemRequestOptions Intending(string rid, bool encrypted) => new()
    {
        AddRequestHeaders = headers =>
        {
            headers["x-ms-cosmos-is-client-encrypted"] = encrypted ? bool.TrueString : bool.FalseString;
            headers["x-ms-cosmos-intended-collection-rid"] = rid;
        },
    };

    private static async Task<string> ResourceIdAsync(Container container) =>
        ContainerResourceIds.Of((await container.ReadContainerAsync(cancellationToken: Ct)).Resource);

    [Fact]
    public async Task EncryptedWrite_ToAContainerRecreatedUnderTheSameName_Is400With1024()
    {
        Container container = await fixture.CreateContainerAsync(cancellationToken: Ct);
        string oldRid = await ResourceIdAsync(container);
        await container.DeleteContainerAsync(cancellationToken: Ct);
        await fixture.Database.CreateContainerAsync(new ContainerProperties(container.Id, CosmosDatabaseFixture.DefaultPartitionKeyPath), cancellationToken: Ct);
        string newRid = await ResourceIdAsync(container);
        TestDocument refused = TestDocument.Create();
        TestDocument unmarked = TestDocument.Create();
        TestDocument intended = TestDocument.Create();

        CosmosException ex = await Assert.ThrowsAsync<CosmosException>(() => container.CreateItemAsync(refused, refused.PartitionKey, Intending(oldRid, encrypted: true), Ct));
        ItemResponse<TestDocument> notEncrypted = await container.CreateItemAsync(unmarked, unmarked.PartitionKey, Intending(oldRid, encrypted: false), Ct);
        ItemResponse<TestDocument> current = await container.CreateItemAsync(intended, intended.PartitionKey, Intending(newRid, encrypted: true), Ct);

        Assert.NotEqual(oldRid, newRid);
        Assert.Equal(HttpStatusCode.BadRequest, ex.StatusCode);
        Assert.Equal(IncorrectContainerRid, ex.SubStatusCode);
        using ResponseMessage notStored = await container.ReadItemStreamAsync(refused.Id, refused.PartitionKey, cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, notStored.StatusCode);
        Assert.Equal(HttpStatusCode.Created, notEncrypted.StatusCode);
        Assert.Equal(HttpStatusCode.Created, current.StatusCode);
    }
}
