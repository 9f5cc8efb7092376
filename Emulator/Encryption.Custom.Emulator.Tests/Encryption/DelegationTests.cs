using Encryption.Custom.Cosmos;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>Members that carry no documents reach the wrapped container unchanged.</summary>
public sealed class DelegationTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task ContainerMembers_DelegateToTheWrappedContainer()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync("/tenant", cancellationToken: Ct);

        ContainerResponse read = await container.ReadContainerAsync(cancellationToken: Ct);
        using ResponseMessage readStream = await container.ReadContainerStreamAsync(cancellationToken: Ct);
        IReadOnlyList<FeedRange> ranges = await container.GetFeedRangesAsync(Ct);

        Assert.Equal(raw.Id, container.Id);
        Assert.Equal(raw.Database.Id, container.Database.Id);
        Assert.NotNull(container.Conflicts);
        Assert.NotNull(container.Scripts);
        Assert.Equal("/tenant", read.Resource.PartitionKeyPath);
        Assert.Equal(HttpStatusCode.OK, readStream.StatusCode);
        Assert.Equal((await raw.GetFeedRangesAsync(Ct)).Count, ranges.Count);
        Assert.NotNull(container.GetItemLinqQueryable<SecretDocument>());
    }

    [Fact]
    public async Task DeleteContainer_DeletesTheWrappedContainer()
    {
        (Container raw, Container container) = await fixture.CreateContainerAsync(cancellationToken: Ct);

        ContainerResponse deleted = await container.DeleteContainerAsync(cancellationToken: Ct);

        Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        using ResponseMessage gone = await raw.ReadContainerStreamAsync(cancellationToken: Ct);
        Assert.Equal(HttpStatusCode.NotFound, gone.StatusCode);
    }

    [Fact]
    public async Task Throughput_DelegatesToTheWrappedContainer()
    {
        Container raw = (await fixture.Database.CreateContainerAsync(
            new ContainerProperties("c-" + Guid.NewGuid().ToString("N"), "/pk"), throughput: 400, cancellationToken: Ct)).Container;
        Container container = raw.WithEncryptor(fixture.Encryptor);

        int? throughput = await container.ReadThroughputAsync(Ct);

        Assert.Equal(400, throughput);
    }
}
