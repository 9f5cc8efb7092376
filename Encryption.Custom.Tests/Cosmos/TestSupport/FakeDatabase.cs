using System.Net;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Cosmos.TestSupport;

/// <summary>A seam-test double for <see cref="Database.CreateContainerIfNotExistsAsync(string, string, int?, RequestOptions, CancellationToken)"/>.</summary>
internal sealed partial class FakeDatabase(string id) : Database
{
    public override string Id { get; } = id;

    public Dictionary<string, FakeContainer> Containers { get; } = new(StringComparer.Ordinal);

    public override Task<ContainerResponse> CreateContainerIfNotExistsAsync(string id, string partitionKeyPath, int? throughput = null, RequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        HttpStatusCode status = HttpStatusCode.OK;
        if (!Containers.TryGetValue(id, out FakeContainer? container))
        {
            container = new FakeContainer(id, partitionKeyPath);
            Containers[id] = container;
            status = HttpStatusCode.Created;
        }

        return Task.FromResult<ContainerResponse>(new FakeContainer.FakeContainerResponse(new ContainerProperties(container.Id, container.PartitionKeyPath), container, status));
    }
}
