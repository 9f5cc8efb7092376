using System.Globalization;
using System.Net;
using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Cosmos.Streams;
using Encryption.Custom.Crypto.Pooling;
using Encryption.Custom.Json.Inspection;
using Encryption.Custom.Keys;
using Encryption.Custom.Processing;
using Microsoft.Azure.Cosmos;
using Microsoft.Extensions.Logging;

namespace Encryption.Custom.Migration;

/// <summary>
/// Brings one document to the target state: decrypts it with the library's processor (whatever accepted key it
/// names), encrypts it as the target says (or not), and replaces it on the condition that it is still the version
/// read (<c>If-Match</c>). A 412 means the application wrote meanwhile: the latest version is read and judged
/// again, so a newer document is never overwritten. Documents that cannot be migrated are recorded, not rewritten.
/// </summary>
internal sealed class DocumentMigrator
{
    private readonly Container _container;
    private readonly BodyCrypto _crypto;
    private readonly EncryptionProcessor _processor;
    private readonly MigrationTarget _target;
    private readonly RequestUnitBudget _budget;
    private readonly MigrationCounters _counters;
    private readonly IReadOnlyList<string> _partitionKeyPaths;
    private readonly DocumentFailures _failures;
    private readonly TimeProvider _time;
    private readonly JsonProcessor _processorKind;
    private EncryptionProcessor? _boundReader;

    /// <param name="migrated">The container, and the crypto and target state it is migrated with.</param>
    /// <param name="budget">The job's throughput budget each request waits for and is charged to.</param>
    /// <param name="counters">The job's counters.</param>
    /// <param name="logger">Logs failed documents, or <see langword="null"/>.</param>
    /// <param name="time">The clock of the pauses before a failed request is sent again.</param>
    public DocumentMigrator(MigratedContainer migrated, RequestUnitBudget budget, MigrationCounters counters, ILogger? logger, TimeProvider time)
    {
        _processorKind = migrated.Crypto.ProcessorKind;
        _container = migrated.Container;
        _crypto = migrated.Crypto;
        _processor = migrated.Crypto.Processor;
        _target = migrated.Target;
        _budget = budget;
        _counters = counters;
        _partitionKeyPaths = migrated.PartitionKeyPaths;
        _failures = new DocumentFailures(counters, logger);
        _time = time;
    }

    /// <summary>
    /// Counts and classifies the documents of a change feed page; returns those to rewrite (copied out of the page).
    /// Documents in the target state are counted as skipped, those that cannot be migrated as failed.
    /// </summary>
    /// <param name="page">The change feed page.</param>
    /// <param name="checkKey">The lease from <see cref="MigrationTarget.LeaseCheckKeyAsync"/>.</param>
    /// <param name="fromFeed">
    /// Whether the page is this instance's change feed; <see langword="false"/> for a query page read to help another
    /// instance, whose documents that lease's feed shows again: they are not counted as seen or skipped here (the
    /// progress would count them twice), only rewritten and failed ones are.
    /// </param>
    public List<StoredDocument> Triage(ReadOnlySpan<byte> page, in DataEncryptionKeyLease checkKey, bool fromFeed = true)
    {
        var work = new List<StoredDocument>();
        Range[] documents = FeedPageDocuments.Split(page, _processor.MaxDepth);
        if (fromFeed)
        {
            _counters.AddSeen(documents.Length);
        }

        foreach (Range range in documents)
        {
            ReadOnlySpan<byte> content = page[range];
            DocumentInspection inspection = _target.Inspect(content, checkKey);
            switch (Judge(inspection, out DocumentState state, out EncryptionException? refusal))
            {
                case Verdict.InTarget:
                    if (fromFeed)
                    {
                        _counters.Skipped();
                    }

                    break;
                case Verdict.Refused:
                    if (StoredDocument.Read(content.ToArray(), _partitionKeyPaths, null) is { } refused)
                    {
                        _failures.Fail(refused, refusal!.Kind, refusal.Message);
                    }

                    break;
                default:
                    if (StoredDocument.Read(content.ToArray(), _partitionKeyPaths, null) is { } document && Accepts(document, state))
                    {
                        work.Add(document);
                    }

                    break;
            }
        }

        return work;
    }

    /// <summary>
    /// Rewrites <paramref name="document"/> in the target state, redoing from the latest version after a 412. A
    /// transient failure (<see cref="TransientFailures"/>) is retried with back-off until it succeeds or the job
    /// stops; only a permanent one is reported. A replace that landed although its answer was lost (a 408, a reset)
    /// is found by the retry: its <c>If-Match</c> then fails, and the latest version is in the target state.
    /// </summary>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled (nothing half-written: a replace is atomic).</exception>
    public async Task MigrateAsync(StoredDocument document, CancellationToken cancellationToken)
    {
        StoredDocument? current = document;
        while (current is not null)
        {
            if (current.ETag is null)
            {
                _failures.Fail(current, null, "The document has no ETag to make the rewrite conditional on.");
                return;
            }

            StoredDocument version = current;
            ResponseMessage response;
            try
            {
                response = await SettledRequests.SendAsync(token => ReplaceAsync(version, token), _budget, null, _time, cancellationToken).ConfigureAwait(false);
            }
            catch (EncryptionException exception)
            {
                _failures.Fail(current, exception.Kind, exception.Message);
                return;
            }

            using (response)
            {
                switch (response.StatusCode)
                {
                    case HttpStatusCode.OK or HttpStatusCode.Created:
                        _counters.Rewritten();
                        return;
                    case HttpStatusCode.NotFound:
                        // Deleted since it was read: nothing left to migrate.
                        _counters.Skipped();
                        return;
                    case HttpStatusCode.PreconditionFailed:
                        _counters.Conflict();
                        break;
                    default:
                        _failures.Refused(current, "rewrite", response.StatusCode, response.Headers["x-ms-substatus"]);
                        return;
                }
            }

            current = await RevisitAsync(current, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>
    /// The document as stored now, judged again (after a 412, or found outside the target state by a verification);
    /// <see langword="null"/> when nothing more is to be done (deleted, in the target state, reported as failed).
    /// </summary>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public async Task<StoredDocument?> RevisitAsync(StoredDocument stale, CancellationToken cancellationToken)
    {
        CurrentVersion current = await SettledRequests.ReadCurrentAsync(_container, stale, _partitionKeyPaths, _budget, _time, cancellationToken).ConfigureAwait(false);
        if (current.Refused)
        {
            _failures.Refused(stale, "read", current.Status, current.SubStatus);
            return null;
        }

        if (current.Document is not { } latest)
        {
            // Deleted meanwhile, or no longer addressable: nothing left to migrate.
            _counters.Skipped();
            return null;
        }

        DocumentInspection inspection;
        using (DataEncryptionKeyLease checkKey = await _target.LeaseCheckKeyAsync(cancellationToken).ConfigureAwait(false))
        {
            inspection = _target.Inspect(latest.Content, checkKey);
        }

        switch (Judge(inspection, out DocumentState state, out EncryptionException? refusal))
        {
            case Verdict.InTarget:
                _counters.Skipped();
                return null;
            case Verdict.Refused:
                _failures.Fail(latest, refusal!.Kind, refusal.Message);
                return null;
            default:
                return Accepts(latest, state) ? latest : null;
        }
    }

    private enum Verdict
    {
        InTarget,
        Refused,
        Rewrite,
    }

    // The one judgement of a stored version, for the first triage and for every re-read (after a 412, or by a
    // verification): in the target state; refused, because it cannot be classified or because it holds a value shaped
    // like ciphertext that its metadata does not list (rewriting it would bury that ciphertext under a second layer);
    // or to be rewritten.
    private Verdict Judge(DocumentInspection inspection, out DocumentState state, out EncryptionException? refusal)
    {
        state = default;
        refusal = null;
        try
        {
            state = _target.Classify(inspection);
        }
        catch (EncryptionException exception)
        {
            refusal = exception;
            return Verdict.Refused;
        }

        if (state.InTarget)
        {
            return Verdict.InTarget;
        }

        if (state.HasUnlistedCipherText)
        {
            refusal = _target.DescribeUnlistedCipherText(inspection);
            return Verdict.Refused;
        }

        return Verdict.Rewrite;
    }

    // A document encrypted with a key outside the accepted ones is reported before the key is ever asked for.
    private bool Accepts(StoredDocument document, DocumentState state)
    {
        if (state.Encrypted && !_target.AcceptsSourceKey(state.KeyId!))
        {
            _failures.Fail(document, EncryptionErrorKind.KeyNotAccepted, string.Create(CultureInfo.InvariantCulture, $"The document is encrypted with the data encryption key '{state.KeyId}', which is not among the migration's accepted source keys."));
            return false;
        }

        return true;
    }

    // Decrypt (system properties removed), encrypt when the target says so, replace if still the version read.
    // Cancellation is honoured up to the replace, never during it: a replace abandoned on the wire may still land
    // and then goes uncounted, so a stopping job lets the ones it sent finish (the SDK's own request timeouts and
    // 429 retry limits bound the wait) and its counts stay exact.
    private async Task<ResponseMessage> ReplaceAsync(StoredDocument document, CancellationToken cancellationToken)
    {
        PooledBufferWriter stripped = PooledBufferWriterPool.Rent();
        PooledContentStream source;
        try
        {
            SystemProperties.CopyWithout(document.Content, stripped);
        }
        catch
        {
            PooledBufferWriterPool.Return(stripped);
            throw;
        }

        source = new PooledContentStream(stripped);
        using (source)
        {
            using PooledContentStream decrypted = await DecryptAsync(source, document, cancellationToken).ConfigureAwait(false);
            var options = new ItemRequestOptions { IfMatchEtag = document.ETag, EnableContentResponseOnWrite = false };
            if (_target.Policy is null)
            {
                return await _container.ReplaceItemStreamAsync(decrypted, document.Id, document.PartitionKey, options, CancellationToken.None).ConfigureAwait(false);
            }

            // Fail closed: a binding target without its container writes nothing rather than unbound cells.
            EncryptionOptions encryption = _target.WriteOptions ?? throw new EncryptionException(
                EncryptionErrorKind.InvalidOptions,
                "The target policy binds values to their document, but the container to bind them to is not known: nothing is written unbound in its place.",
                _target.Policy.DataEncryptionKeyId);
            using EncryptedRequestBody body = await _crypto.EncryptAsync(decrypted, encryption, recycle: true, null, cancellationToken).ConfigureAwait(false);
            return await _container.ReplaceItemStreamAsync(body.Stream, document.Id, document.PartitionKey, options, CancellationToken.None).ConfigureAwait(false);
        }
    }

    // A bound document (format 101 with binding) is read with rules bound to this container; any other with the
    // job's policy-free processor, as before.
    private async Task<PooledContentStream> DecryptAsync(PooledContentStream source, StoredDocument document, CancellationToken cancellationToken)
    {
        if (!_target.Inspect(document.Content, default).Bound)
        {
            return await _crypto.DecryptDocumentAsync(source, null, cancellationToken).ConfigureAwait(false);
        }

        EncryptionProcessor bound = _boundReader ??= EncryptionProcessor.Create(_processorKind, null, _target.BoundReadRules
            ?? throw new EncryptionException(
                EncryptionErrorKind.InvalidOptions,
                "The document's values are bound to their container, and this migration has no container binding to read them with (a target policy is needed, and a container whose partition-key paths are top-level properties)."));
        PooledBufferWriter buffer = PooledBufferWriterPool.Rent();
        try
        {
            await bound.DecryptAsync(source, buffer, _crypto.Encryptor, includeDecryptionContext: false, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            PooledBufferWriterPool.Return(buffer);
            throw;
        }

        return new PooledContentStream(buffer);
    }
}
