using System.Net;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Responses;

/// <summary>An item response whose resource the container built itself (a <see cref="DecryptableItem"/>); the rest is the service's.</summary>
internal sealed class EncryptionItemResponse<T> : ItemResponse<T>
{
    private readonly ResponseMessage _response;
    private readonly T _resource;

    public EncryptionItemResponse(ResponseMessage response, T resource)
    {
        _response = response;
        _resource = resource;
    }

    public override Headers Headers => _response.Headers;

    public override T Resource => _resource;

    public override HttpStatusCode StatusCode => _response.StatusCode;

    public override CosmosDiagnostics Diagnostics => _response.Diagnostics;

    public override double RequestCharge => _response.Headers?.RequestCharge ?? 0;

    public override string ActivityId => _response.Headers?.ActivityId!;

    public override string ETag => _response.Headers?.ETag!;
}
