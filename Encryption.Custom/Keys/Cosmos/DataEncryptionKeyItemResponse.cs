using System.Net;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Keys.Cosmos;

/// <summary>An <see cref="ItemResponse{T}"/> over a stream response whose body the key layer parsed itself.</summary>
internal sealed class DataEncryptionKeyItemResponse(ResponseMessage response, DataEncryptionKeyProperties properties)
    : ItemResponse<DataEncryptionKeyProperties>
{
    public override Headers Headers { get; } = response.Headers;

    public override DataEncryptionKeyProperties Resource { get; } = properties;

    public override HttpStatusCode StatusCode { get; } = response.StatusCode;

    public override CosmosDiagnostics Diagnostics { get; } = response.Diagnostics;

    public override double RequestCharge => Headers.RequestCharge;

    public override string ActivityId => Headers.ActivityId;

    public override string ETag => Headers.ETag ?? Resource.ETag ?? string.Empty;
}
