using System.Globalization;
using System.Net;
using System.Text.Json;
using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Diagnostics;
using Microsoft.Azure.Cosmos;
using Microsoft.Extensions.Logging;

namespace Encryption.Custom.Migration.Copy;

/// <summary>
/// Copies one source document into the target container: decrypts it in memory through the source's own decrypting
/// path (the source policy and keys), drops the service's properties, and upserts the plaintext through the target's
/// encrypting container, which encrypts it (and, once the policy can name them, its id and partition key) as the
/// target policy says. The upsert makes a copy idempotent: delivered twice (a restart before a checkpoint, a lease
/// that moved), the document ends the same; a newer source version delivered later overwrites an older one.
/// </summary>
internal sealed class DocumentCopier
{
    private readonly Container _source;
    private readonly BodyCrypto _sourceCrypto;
    private readonly IReadOnlyList<string> _sourcePartitionKeyPaths;
    private readonly CopyEnds _ends;
    private readonly MigrationTarget _keys;
    private readonly RequestUnitBudget _budget;
    private readonly MigrationCounters _counters;
    private readonly ILogger? _logger;
    private readonly TimeProvider _time;

    public DocumentCopier(CopyEnds ends, RequestUnitBudget budget, MigrationCounters counters, ILogger? logger, TimeProvider time)
    {
        _source = ends.Source;
        _ends = ends;
        _keys = ends.TargetState;
        _sourceCrypto = ends.SourceCrypto;
        _sourcePartitionKeyPaths = ends.SourcePartitionKeyPaths;
        _budget = budget;
        _counters = counters;
        _logger = logger;
        _time = time;
    }

    /// <summary>Copies a stored (still encrypted) source document, as the change feed or a read gave it.</summary>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public async Task CopyAsync(StoredDocument stored, CancellationToken cancellationToken)
    {
        // As in place: a document under a key the job was not given is reported before the key is ever asked for.
        if (_keys.Inspect(stored.Content, default).KeyId is { } keyId && !_keys.AcceptsSourceKey(keyId))
        {
            Fail(stored, EncryptionErrorKind.KeyNotAccepted, string.Create(CultureInfo.InvariantCulture, $"The document is encrypted with the data encryption key '{keyId}', which is not among the copy's accepted source keys."));
            return;
        }

        PooledContentStream plaintext;
        try
        {
            plaintext = await DecryptAsync(stored, cancellationToken).ConfigureAwait(false);
        }
        catch (EncryptionException exception)
        {
            Fail(stored, exception.Kind, exception.Message);
            return;
        }

        using (plaintext)
        {
            (string? id, PartitionKey partitionKey) = ReadTargetKey(plaintext.Content.Span);
            if (id is null)
            {
                Fail(stored, EncryptionErrorKind.MalformedDocument, "The decrypted document has no string id to write the copy under.");
                return;
            }

            await UpsertAsync(stored, plaintext, partitionKey, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Reads the source document again (a verification found its copy missing or different) and copies the version
    /// stored now; a document deleted from the source meanwhile is skipped (its copy, if any, stays: see docs/migration.md).
    /// </summary>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public async Task CopyLatestAsync(StoredDocument stale, CancellationToken cancellationToken)
    {
        int transientAttempts = 0;
        while (true)
        {
            await _budget.WaitAsync(cancellationToken).ConfigureAwait(false);
            ResponseMessage response;
            try
            {
                response = await _source.ReadItemStreamAsync(stale.Id, stale.PartitionKey, cancellationToken: cancellationToken).ConfigureAwait(false);
            }
            catch (Exception exception) when (TransientFailures.IsTransient(exception, cancellationToken))
            {
                await BackOffAsync(transientAttempts++, cancellationToken).ConfigureAwait(false);
                continue;
            }

            using ResponseMessage answer = response;
            _budget.Charge(response.Headers.RequestCharge);
            switch (response.StatusCode)
            {
                case HttpStatusCode.OK:
                    break;
                case HttpStatusCode.NotFound:
                    _counters.Skipped();
                    return;
                case HttpStatusCode.TooManyRequests:
                    _budget.Throttled(response.Headers);
                    continue;
                case var status when TransientFailures.IsTransient(status):
                    await BackOffAsync(transientAttempts++, cancellationToken).ConfigureAwait(false);
                    continue;
                default:
                    Refused(stale, "source read", response);
                    return;
            }

            using var copy = new MemoryStream();
            await response.Content.CopyToAsync(copy, cancellationToken).ConfigureAwait(false);
            if (StoredDocument.Read(copy.ToArray(), _sourcePartitionKeyPaths, response.Headers.ETag) is { } latest)
            {
                await CopyAsync(latest, cancellationToken).ConfigureAwait(false);
            }

            return;
        }
    }

    // The source's decrypting path: its policy's read rules, bound to the source container when that policy binds.
    private async Task<PooledContentStream> DecryptAsync(StoredDocument stored, CancellationToken cancellationToken)
    {
        using var content = new MemoryStream(stored.Content, writable: false);
        using PooledContentStream decrypted = await _sourceCrypto.DecryptDocumentAsync(content, null, cancellationToken).ConfigureAwait(false);
        PooledBufferWriter stripped = PooledBufferWriterPool.Rent();
        try
        {
            SystemProperties.CopyWithout(decrypted.Content.Span, stripped);
        }
        catch
        {
            PooledBufferWriterPool.Return(stripped);
            throw;
        }

        return new PooledContentStream(stripped);
    }

    private (string? Id, PartitionKey PartitionKey) ReadTargetKey(ReadOnlySpan<byte> plaintext)
    {
        try
        {
            return StoredDocument.ReadKey(plaintext, _ends.TargetPartitionKeyPaths);
        }
        catch (JsonException)
        {
            return (null, PartitionKey.None);
        }
    }

    // An upsert, retried on transient failures: nothing to make conditional (the target's version is the job's own
    // or a stale copy; the source's latest delivered version wins). Cancellation is honoured up to the write, never
    // during it, as in the in-place job, so the counts stay exact.
    private async Task UpsertAsync(StoredDocument stored, PooledContentStream plaintext, PartitionKey partitionKey, CancellationToken cancellationToken)
    {
        int transientAttempts = 0;
        var options = new ItemRequestOptions { EnableContentResponseOnWrite = false };
        while (true)
        {
            await _budget.WaitAsync(cancellationToken).ConfigureAwait(false);
            ResponseMessage response;
            try
            {
                using MemoryStream body = plaintext.CreateView();
                response = await _ends.TargetView.UpsertItemStreamAsync(body, partitionKey, options, CancellationToken.None).ConfigureAwait(false);
            }
            catch (EncryptionException exception)
            {
                Fail(stored, exception.Kind, exception.Message);
                return;
            }
            catch (Exception exception) when (TransientFailures.IsTransient(exception, cancellationToken))
            {
                await BackOffAsync(transientAttempts++, cancellationToken).ConfigureAwait(false);
                continue;
            }

            using (response)
            {
                _budget.Charge(response.Headers.RequestCharge);
                switch (response.StatusCode)
                {
                    case HttpStatusCode.OK or HttpStatusCode.Created:
                        _counters.Rewritten();
                        return;
                    case HttpStatusCode.TooManyRequests:
                        _budget.Throttled(response.Headers);
                        continue;
                    case var status when TransientFailures.IsTransient(status):
                        break;
                    default:
                        // 409 (a unique key of the target), 413 (too large once encrypted), 400: permanent for this version.
                        Refused(stored, "target write", response);
                        return;
                }
            }

            await BackOffAsync(transientAttempts++, cancellationToken).ConfigureAwait(false);
        }
    }

    private Task BackOffAsync(int attempt, CancellationToken cancellationToken) =>
        Task.Delay(TransientFailures.Delay(attempt), _time, cancellationToken);

    // Reported under the source's stored id and key: that is where the operator finds the document.
    private void Fail(StoredDocument document, EncryptionErrorKind? kind, string reason, string? errorType = null)
    {
        var failure = new EncryptionMigrationFailure(document.Id, document.PartitionKey.ToString(), kind, reason);
        _counters.Failed(failure);
        if (_logger is not null)
        {
            EncryptionLog.MigrationDocumentFailed(_logger, failure.Id, failure.PartitionKey, errorType ?? kind?.ToString() ?? "unknown", reason);
        }
    }

    // Status codes only: the service's error text may quote the request.
    private void Refused(StoredDocument document, string what, ResponseMessage response)
    {
        int status = (int)response.StatusCode;
        Fail(
            document,
            null,
            string.Create(CultureInfo.InvariantCulture, $"The service refused the {what} with status {status} (substatus {response.Headers["x-ms-substatus"] ?? "0"})."),
            ErrorTypes.ForStatus(status));
    }
}
