using System.Net;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Performance.Tests.Cosmos;

/// <summary>
/// A container that keeps the last body written and answers reads with it, with no network and no JSON work:
/// what remains in a benchmark over it is the SDK's response objects and the encryption container's own cost.
/// </summary>
public sealed class EchoContainer : UnsupportedContainer
{
    private static readonly CosmosClient s_client = new(
        "https://localhost:8081/",
        "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==");

    private byte[] _stored = [];

    public override string Id => "echo";

    public override Database Database => s_client.GetDatabase("db");

    public override Task<ResponseMessage> CreateItemStreamAsync(Stream streamPayload, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default)
    {
        // The service keeps its own copy of the body; the benchmark reuses one array of the right size.
        if (_stored.Length != streamPayload.Length)
        {
            _stored = new byte[streamPayload.Length];
        }

        streamPayload.ReadExactly(_stored);
        return Task.FromResult(Respond(HttpStatusCode.Created));
    }

    public override Task<ResponseMessage> ReadItemStreamAsync(string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        Task.FromResult(Respond(HttpStatusCode.OK));

    public override Task<ContainerResponse> ReadContainerAsync(ContainerRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        Task.FromResult<ContainerResponse>(new EchoContainerResponse(new ContainerProperties(Id, "/pk")));

    private ResponseMessage Respond(HttpStatusCode status) =>
        new(status) { Content = new MemoryStream(_stored, 0, _stored.Length, writable: false, publiclyVisible: true) };

    private sealed class EchoContainerResponse(ContainerProperties properties) : ContainerResponse
    {
        public override ContainerProperties Resource => properties;
    }
}
