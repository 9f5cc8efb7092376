namespace Encryption.Custom.Emulator.Tests.Sdk;

public sealed class DatabaseAndContainerTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Database_CreateReadDelete_FollowsLifecycle()
    {
        string id = CosmosDatabaseFixture.DatabaseIdPrefix + Guid.NewGuid().ToString("N");

        DatabaseResponse created = await fixture.Client.CreateDatabaseAsync(id, cancellationToken: Ct);
        try
        {
            Assert.Equal(HttpStatusCode.Created, created.StatusCode);
            DatabaseResponse read = await created.Database.ReadAsync(cancellationToken: Ct);
            Assert.Equal(HttpStatusCode.OK, read.StatusCode);
            Assert.Equal(id, read.Resource.Id);

            DatabaseResponse again = await fixture.Client.CreateDatabaseIfNotExistsAsync(id, cancellationToken: Ct);
            Assert.Equal(HttpStatusCode.OK, again.StatusCode);
            CosmosException duplicate = await Assert.ThrowsAsync<CosmosException>(
                () => fixture.Client.CreateDatabaseAsync(id, cancellationToken: Ct));
            Assert.Equal(HttpStatusCode.Conflict, duplicate.StatusCode);
        }
        finally
        {
            DatabaseResponse deleted = await created.Database.DeleteAsync(cancellationToken: Ct);
            Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        }

        CosmosException gone = await Assert.ThrowsAsync<CosmosException>(
            () => fixture.Client.GetDatabase(id).ReadAsync(cancellationToken: Ct));
        Assert.Equal(HttpStatusCode.NotFound, gone.StatusCode);
    }

    [Fact]
    public async Task Container_CreateReadDelete_FollowsLifecycle()
    {
        string id = "c-" + Guid.NewGuid().ToString("N");

        ContainerResponse created = await fixture.Database.CreateContainerAsync(
            new ContainerProperties(id, "/tenant"), cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.Created, created.StatusCode);

        ContainerResponse read = await created.Container.ReadContainerAsync(cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.OK, read.StatusCode);
        Assert.Equal(id, read.Resource.Id);
        Assert.Equal("/tenant", read.Resource.PartitionKeyPath);

        ContainerResponse again = await fixture.Database.CreateContainerIfNotExistsAsync(id, "/tenant", cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.OK, again.StatusCode);
        CosmosException duplicate = await Assert.ThrowsAsync<CosmosException>(
            () => fixture.Database.CreateContainerAsync(id, "/tenant", cancellationToken: Ct));
        Assert.Equal(HttpStatusCode.Conflict, duplicate.StatusCode);

        ContainerResponse deleted = await created.Container.DeleteContainerAsync(cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        CosmosException gone = await Assert.ThrowsAsync<CosmosException>(
            () => fixture.Database.GetContainer(id).ReadContainerAsync(cancellationToken: Ct));
        Assert.Equal(HttpStatusCode.NotFound, gone.StatusCode);
    }

    [Fact]
    public async Task Container_ItemWrittenInOtherContainer_IsNotVisible()
    {
        Container first = await fixture.CreateContainerAsync(cancellationToken: Ct);
        Container second = await fixture.CreateContainerAsync(cancellationToken: Ct);
        TestDocument document = TestDocument.Create();

        await first.CreateItemAsync(document, document.PartitionKey, cancellationToken: Ct);

        CosmosException missing = await Assert.ThrowsAsync<CosmosException>(
            () => second.ReadItemAsync<TestDocument>(document.Id, document.PartitionKey, cancellationToken: Ct));
        Assert.Equal(HttpStatusCode.NotFound, missing.StatusCode);
    }

    [Fact]
    public async Task Container_InADatabaseWithSharedThroughput_SaysItSharesIt()
    {
        string id = CosmosDatabaseFixture.DatabaseIdPrefix + Guid.NewGuid().ToString("N");
        DatabaseResponse shared = await fixture.Client.CreateDatabaseAsync(id, throughput: 400, cancellationToken: Ct);
        try
        {
            Container sharing = await shared.Database.CreateContainerAsync(new ContainerProperties("sharing", "/pk"), cancellationToken: Ct);
            Container dedicated = await fixture.CreateContainerAsync(cancellationToken: Ct);

            ContainerResponse sharingRead = await sharing.ReadContainerAsync(cancellationToken: Ct);
            ContainerResponse dedicatedRead = await dedicated.ReadContainerAsync(cancellationToken: Ct);

            Assert.Equal("true", sharingRead.Headers["x-ms-share-throughput"], ignoreCase: true);
            Assert.NotEqual("true", dedicatedRead.Headers["x-ms-share-throughput"]?.ToLowerInvariant());
        }
        finally
        {
            await shared.Database.DeleteAsync(cancellationToken: Ct);
        }
    }
}
