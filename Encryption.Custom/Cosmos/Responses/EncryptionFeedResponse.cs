using System.Net;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Responses;

/// <summary>A feed page whose items the container built itself (<see cref="DecryptableItem"/>s); the rest is the service's.</summary>
internal sealed class EncryptionFeedResponse<T> : FeedResponse<T>
{
    private readonly ResponseMessage _response;
    private readonly IReadOnlyList<T> _items;

    public EncryptionFeedResponse(ResponseMessage response, IReadOnlyList<T> items)
    {
        _response = response;
        _items = items;
    }

    public override string ContinuationToken => _response.ContinuationToken;

    public override int Count => _items.Count;

    public override string IndexMetrics => _response.IndexMetrics;

    public override Headers Headers => _response.Headers;

    public override IEnumerable<T> Resource => _items;

    public override HttpStatusCode StatusCode => _response.StatusCode;

    public override CosmosDiagnostics Diagnostics => _response.Diagnostics;

    public override IEnumerator<T> GetEnumerator() => _items.GetEnumerator();
}
