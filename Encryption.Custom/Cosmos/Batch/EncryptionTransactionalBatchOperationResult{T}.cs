using System.Net;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Batch;

/// <summary>A batch operation's result with its decrypted body deserialized by the client's serializer.</summary>
internal sealed class EncryptionTransactionalBatchOperationResult<T> : TransactionalBatchOperationResult<T>
{
    private readonly TransactionalBatchOperationResult _inner;

    public EncryptionTransactionalBatchOperationResult(TransactionalBatchOperationResult inner, T resource)
    {
        _inner = inner;
        Resource = resource;
    }

    public override T Resource { get; set; }

    public override Stream? ResourceStream => _inner.ResourceStream;

    public override HttpStatusCode StatusCode => _inner.StatusCode;

    public override bool IsSuccessStatusCode => _inner.IsSuccessStatusCode;

    public override string ETag => _inner.ETag;

    public override TimeSpan RetryAfter => _inner.RetryAfter;
}
