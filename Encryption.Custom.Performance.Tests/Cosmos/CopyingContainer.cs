using System.Net;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Performance.Tests.Cosmos;

/// <summary>
/// An in-process <see cref="Container"/> that only copies bytes, so a benchmark through it measures the client side
/// alone: item writes copy the body into one reusable slot, item reads return a stream over that slot. Not a fake
/// database: no ids, partition keys, ETags or system properties.
/// </summary>
public sealed partial class CopyingContainer(string id) : Container
{
    private byte[] _stored = new byte[4096];
    private int _length;

    public override string Id { get; } = id;

    /// <exception cref="NotSupportedException">Always: the stub has no database.</exception>
    public override Database Database => throw new NotSupportedException();

    /// <summary>The body of the last write.</summary>
    public ReadOnlySpan<byte> StoredDocument => _stored.AsSpan(0, _length);

    public override Task<ResponseMessage> CreateItemStreamAsync(Stream streamPayload, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        Store(streamPayload, HttpStatusCode.Created);

    public override Task<ResponseMessage> ReplaceItemStreamAsync(Stream streamPayload, string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        Store(streamPayload, HttpStatusCode.OK);

    public override Task<ResponseMessage> UpsertItemStreamAsync(Stream streamPayload, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        Store(streamPayload, HttpStatusCode.OK);

    public override Task<ResponseMessage> ReadItemStreamAsync(string id, PartitionKey partitionKey, ItemRequestOptions? requestOptions = null, CancellationToken cancellationToken = default) =>
        Task.FromResult(new ResponseMessage(HttpStatusCode.OK) { Content = new MemoryStream(_stored, 0, _length, writable: false) });

    private Task<ResponseMessage> Store(Stream payload, HttpStatusCode status)
    {
        ArgumentNullException.ThrowIfNull(payload);
        _length = 0;
        int read;
        do
        {
            if (_length == _stored.Length)
            {
                Array.Resize(ref _stored, _stored.Length * 2);
            }

            read = payload.Read(_stored, _length, _stored.Length - _length);
            _length += read;
        }
        while (read > 0);

        return Task.FromResult(new ResponseMessage(status));
    }
}
