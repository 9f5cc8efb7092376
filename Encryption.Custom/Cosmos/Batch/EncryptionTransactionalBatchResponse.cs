using System.Net;
using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Diagnostics;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Batch;

/// <summary>
/// A transactional batch response whose operation results carry decrypted bodies (read, create, replace, upsert
/// and patch results alike); status, headers and diagnostics are the service's. Disposing it zeroes and returns
/// the decrypted bodies.
/// </summary>
internal sealed class EncryptionTransactionalBatchResponse : TransactionalBatchResponse
{
    private readonly TransactionalBatchResponse _inner;
    private readonly List<TransactionalBatchOperationResult> _results;
    private readonly List<PooledContentStream> _decrypted;
    private readonly CosmosSerializer _serializer;
    private bool _disposed;

    private EncryptionTransactionalBatchResponse(TransactionalBatchResponse inner, List<TransactionalBatchOperationResult> results, List<PooledContentStream> decrypted, CosmosSerializer serializer)
    {
        _inner = inner;
        _results = results;
        _decrypted = decrypted;
        _serializer = serializer;
    }

    public override TransactionalBatchOperationResult this[int index] => _results[index];

    public override Headers Headers => _inner.Headers;

    public override string ActivityId => _inner.ActivityId;

    public override double RequestCharge => _inner.RequestCharge;

    public override TimeSpan? RetryAfter => _inner.RetryAfter;

    public override HttpStatusCode StatusCode => _inner.StatusCode;

    public override string ErrorMessage => _inner.ErrorMessage;

    public override bool IsSuccessStatusCode => _inner.IsSuccessStatusCode;

    public override int Count => _results.Count;

    public override CosmosDiagnostics Diagnostics => _inner.Diagnostics;

    /// <summary>Decrypts the bodies of <paramref name="inner"/>'s results; on failure <paramref name="inner"/> is disposed.</summary>
    /// <param name="inner">The SDK's response.</param>
    /// <param name="container">Decrypts and deserializes.</param>
    /// <param name="hasWrites">Whether the batch holds a write: a successful one was then applied, whatever its results say.</param>
    /// <param name="telemetry">The operation's telemetry, or <see langword="null"/>.</param>
    /// <param name="cancellationToken">Cancels the decryption.</param>
    /// <exception cref="EncryptionResponseException">The batch held a write and committed, but a result body cannot be decrypted.</exception>
    /// <exception cref="EncryptionException">A result body of a read-only batch cannot be decrypted.</exception>
    public static async Task<EncryptionTransactionalBatchResponse> CreateAsync(
        TransactionalBatchResponse inner, EncryptionContainer container, bool hasWrites, OperationTelemetry? telemetry, CancellationToken cancellationToken)
    {
        var results = new List<TransactionalBatchOperationResult>(inner.Count);
        var decrypted = new List<PooledContentStream>();
        try
        {
            for (int i = 0; i < inner.Count; i++)
            {
                TransactionalBatchOperationResult result = inner[i];
                Stream? body = result.ResourceStream;
                if (!result.IsSuccessStatusCode || body is null || (body.CanSeek && body.Length == 0))
                {
                    results.Add(result);
                    continue;
                }

                PooledContentStream plain;
                try
                {
                    plain = await container.Crypto.DecryptDocumentAsync(body, telemetry, cancellationToken).ConfigureAwait(false);
                }
                catch (EncryptionException exception) when (hasWrites && inner.IsSuccessStatusCode)
                {
                    // Read from the results before they are disposed: the caller must learn that the batch landed.
                    string?[] etags = [.. Enumerable.Range(0, inner.Count).Select(index => inner[index].ETag)];
                    throw new EncryptionResponseException(inner.StatusCode, inner.RequestCharge, i, etags, exception);
                }

                decrypted.Add(plain);
                results.Add(new EncryptionTransactionalBatchOperationResult(result, plain));
            }
        }
        catch
        {
            foreach (PooledContentStream stream in decrypted)
            {
                await stream.DisposeAsync().ConfigureAwait(false);
            }

            inner.Dispose();
            throw;
        }

        return new EncryptionTransactionalBatchResponse(inner, results, decrypted, container.Serializer);
    }

    public override TransactionalBatchOperationResult<T> GetOperationResultAtIndex<T>(int index)
    {
        TransactionalBatchOperationResult result = _results[index];
        T resource = default!;
        if (result.ResourceStream is PooledContentStream plain)
        {
            // A view, so that the result's own stream stays readable after deserialization.
            resource = _serializer.FromStream<T>(plain.CreateView());
        }
        else if (result.ResourceStream is { } stream && stream.CanSeek && stream.Length > 0)
        {
            stream.Position = 0;
            resource = _serializer.FromStream<T>(new NonClosingStream(stream));
        }

        return new EncryptionTransactionalBatchOperationResult<T>(result, resource);
    }

    public override IEnumerator<TransactionalBatchOperationResult> GetEnumerator() => _results.GetEnumerator();

    protected override void Dispose(bool disposing)
    {
        if (disposing && !_disposed)
        {
            _disposed = true;
            foreach (PooledContentStream stream in _decrypted)
            {
                stream.Dispose();
            }

            _inner.Dispose();
        }

        base.Dispose(disposing);
    }
}
