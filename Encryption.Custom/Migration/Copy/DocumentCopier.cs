using System.Globalization;
using System.Net;
using System.Text.Json;
using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Crypto.Pooling;
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
    private readonly DocumentFailures _failures;
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
        _failures = new DocumentFailures(counters, logger);
        _time = time;
    }

    /// <summary>Copies a stored (still encrypted) source document, as the change feed or a read gave it.</summary>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public async Task CopyAsync(StoredDocument stored, CancellationToken cancellationToken)
    {
        // As in place: a document under a key the job was not given is reported before the key is ever asked for.
        if (_keys.Inspect(stored.Content, default).KeyId is { } keyId && !_keys.AcceptsSourceKey(keyId))
        {
            _failures.Fail(stored, EncryptionErrorKind.KeyNotAccepted, string.Create(CultureInfo.InvariantCulture, $"The document is encrypted with the data encryption key '{keyId}', which is not among the copy's accepted source keys."));
            return;
        }

        PooledContentStream plaintext;
        try
        {
            plaintext = await _ends.DecryptSourceAsync(stored.Content, cancellationToken).ConfigureAwait(false);
        }
        catch (EncryptionException exception)
        {
            _failures.Fail(stored, exception.Kind, exception.Message);
            return;
        }

        using (plaintext)
        {
            (string? id, PartitionKey partitionKey) = ReadTargetKey(plaintext.Content.Span);
            if (id is null)
            {
                _failures.Fail(stored, EncryptionErrorKind.MalformedDocument, "The decrypted document has no string id to write the copy under.");
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
        CurrentVersion current = await SettledRequests.ReadCurrentAsync(_source, stale, _sourcePartitionKeyPaths, _budget, _time, cancellationToken).ConfigureAwait(false);
        if (current.Deleted)
        {
            _counters.Skipped();
        }
        else if (current.Refused)
        {
            _failures.Refused(stale, "source read", current.Status, current.SubStatus);
        }
        else if (current.Document is { } latest)
        {
            await CopyAsync(latest, cancellationToken).ConfigureAwait(false);
        }
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
        var options = new ItemRequestOptions { EnableContentResponseOnWrite = false };
        ResponseMessage response;
        try
        {
            response = await SettledRequests.SendAsync(
                async _ =>
                {
                    using MemoryStream body = plaintext.CreateView();
                    return await _ends.TargetView.UpsertItemStreamAsync(body, partitionKey, options, CancellationToken.None).ConfigureAwait(false);
                },
                _budget,
                null,
                _time,
                cancellationToken).ConfigureAwait(false);
        }
        catch (EncryptionException exception)
        {
            _failures.Fail(stored, exception.Kind, exception.Message);
            return;
        }

        using (response)
        {
            if (response.StatusCode is HttpStatusCode.OK or HttpStatusCode.Created)
            {
                _counters.Rewritten();
            }
            else
            {
                // 409 (a unique key of the target), 413 (too large once encrypted), 400: permanent for this version.
                _failures.Refused(stored, "target write", response.StatusCode, response.Headers["x-ms-substatus"]);
            }
        }
    }
}
