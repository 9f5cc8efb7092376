using System.Net;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Batch;

/// <summary>A batch operation's result whose body was decrypted; everything else is the service's.</summary>
internal sealed class EncryptionTransactionalBatchOperationResult : TransactionalBatchOperationResult
{
    private readonly TransactionalBatchOperationResult _inner;
    private readonly Stream? _resourceStream;

    public EncryptionTransactionalBatchOperationResult(TransactionalBatchOperationResult inner, Stream? resourceStream)
    {
        _inner = inner;
        _resourceStream = resourceStream;
    }

    public override Stream? ResourceStream => _resourceStream;

    public override HttpStatusCode StatusCode => _inner.StatusCode;

    public override bool IsSuccessStatusCode => _inner.IsSuccessStatusCode;

    public override string ETag => _inner.ETag;

    public override TimeSpan RetryAfter => _inner.RetryAfter;
}
