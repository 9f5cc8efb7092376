using System.Net;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Keys.Cosmos;

/// <summary>A page of DEK documents parsed by the key layer from a stream query response.</summary>
internal sealed class DataEncryptionKeyFeedResponse(ResponseMessage response, IReadOnlyList<DataEncryptionKeyProperties> documents)
    : FeedResponse<DataEncryptionKeyProperties>
{
    public override Headers Headers { get; } = response.Headers;

    public override IEnumerable<DataEncryptionKeyProperties> Resource => documents;

    public override HttpStatusCode StatusCode { get; } = response.StatusCode;

    public override CosmosDiagnostics Diagnostics { get; } = response.Diagnostics;

    public override string ContinuationToken { get; } = response.ContinuationToken;

    public override int Count => documents.Count;

    public override string IndexMetrics => Headers["x-ms-cosmos-index-utilization"] ?? string.Empty;

    public override IEnumerator<DataEncryptionKeyProperties> GetEnumerator() => documents.GetEnumerator();
}
