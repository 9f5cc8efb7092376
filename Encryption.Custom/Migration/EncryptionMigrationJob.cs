using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Diagnostics;
using Encryption.Custom.Keys;
using Encryption.Custom.Migration;
using Microsoft.Azure.Cosmos;
using Microsoft.Extensions.Logging;

namespace Encryption.Custom;

/// <summary>
/// Brings the documents of a live container to a target encryption state, in place, while the application keeps
/// reading and writing: encrypt plaintext documents, rotate to a new data encryption key, apply a changed set of
/// paths, or decrypt everything. Runs as an instance of Cosmos DB's change feed processor from the beginning of
/// the feed, so several instances started with the same lease container and processor name share the work, and a
/// stopped job resumes from its checkpoints. Recipe, costs and guarantees: docs/migration.md.
/// </summary>
/// <remarks>
/// <para>
/// Each document not in the target state is decrypted with the library's processor (with whatever accepted key
/// it names) and replaced in the target form on the condition <c>If-Match</c> its ETag as read. A 412 means the
/// application wrote meanwhile: the latest version is read and judged again, so a newer document is never
/// overwritten. Documents already in the target state, including the job's own writes coming back through the
/// feed, are skipped: the job is idempotent and can be stopped and restarted at any point.
/// </para>
/// <para>
/// A document that cannot be migrated (tampered, encrypted with a key that is unknown or not accepted, malformed
/// metadata, refused by the service) is left as it was and reported with its id, partition key and the reason,
/// never a value, in <see cref="EncryptionMigrationResult.Failures"/> and the log; the job goes on.
/// </para>
/// </remarks>
public sealed partial class EncryptionMigrationJob : IAsyncDisposable
{
    private readonly Container _container;
    private readonly Encryptor _encryptor;
    private readonly string[] _allowedDecryptPaths;
    private readonly string[] _allowedTypeChangePaths;
    private readonly Container _leaseContainer;
    private readonly EncryptionMigrationOptions _options;
    private readonly MigrationTarget _target;
    private readonly BodyCrypto _crypto;
    private readonly RequestUnitBudget _budget;
    private readonly MigrationCounters _counters;
    private readonly SemaphoreSlim _parallelism;
    private readonly LeasePages _leasePages = new();
    private readonly ILogger? _logger;
    private readonly CancellationTokenSource _disposed = new();
    private readonly TimeProvider _time;
    private TaskCompletionSource? _runEnded;
    private IReadOnlyList<string>? _partitionKeyPaths;
    private DocumentMigrator? _migrator;
    private int _running;
    private long _inFlight;
    private TaskCompletionSource? _drained;
    private long? _lastLag;

    /// <summary>Creates a job; nothing is read or written before <see cref="RunAsync"/>.</summary>
    /// <param name="container">The container to migrate, as the SDK gives it (not wrapped with <c>WithEncryptor</c>).</param>
    /// <param name="encryptor">Supplies the source keys and the target key.</param>
    /// <param name="targetPolicy">The state to bring documents to, or <see langword="null"/> to decrypt everything.</param>
    /// <param name="leaseContainer">The change feed processor's lease container (partition key <c>/id</c>), shared by the instances.</param>
    /// <param name="options">
    /// How the job runs, and what it may read and take away (<see cref="EncryptionMigrationOptions.AcceptedSourceDataEncryptionKeyIds"/>,
    /// <see cref="EncryptionMigrationOptions.AllowedDecryptPaths"/>, <see cref="EncryptionMigrationOptions.AllowedEncryptionTypeChangePaths"/>);
    /// <see langword="null"/> for the defaults. The collections are copied here: later changes to them do not reach the job.
    /// </param>
    /// <exception cref="ArgumentNullException">A required argument is null.</exception>
    /// <exception cref="ArgumentException">An accepted key id is empty or white space.</exception>
    public EncryptionMigrationJob(
        Container container,
        Encryptor encryptor,
        ContainerEncryptionPolicy? targetPolicy,
        Container leaseContainer,
        EncryptionMigrationOptions? options = null)
        : this(container, encryptor, targetPolicy, leaseContainer, options, sourcePolicy: null)
    {
    }

    // Both kinds of job: in place, and a copy whose source policy's keys are accepted source keys too.
    private EncryptionMigrationJob(
        Container container,
        Encryptor encryptor,
        ContainerEncryptionPolicy? targetPolicy,
        Container leaseContainer,
        EncryptionMigrationOptions? options,
        ContainerEncryptionPolicy? sourcePolicy)
    {
        ArgumentNullException.ThrowIfNull(container);
        ArgumentNullException.ThrowIfNull(encryptor);
        ArgumentNullException.ThrowIfNull(leaseContainer);
        _container = container;
        _encryptor = encryptor;
        _leaseContainer = leaseContainer;
        _options = options ?? new EncryptionMigrationOptions();
        _allowedDecryptPaths = [.. _options.AllowedDecryptPaths];
        _allowedTypeChangePaths = [.. _options.AllowedEncryptionTypeChangePaths];
        IEnumerable<string> sourcePolicyKeys = sourcePolicy is null ? [] : [sourcePolicy.DataEncryptionKeyId, .. sourcePolicy.AcceptedDataEncryptionKeyIds];
        _target = new MigrationTarget(targetPolicy, [.. _options.AcceptedSourceDataEncryptionKeyIds, .. sourcePolicyKeys], encryptor, _options.JsonProcessor);

        // The job's processors carry no policy: it must read every state to bring it to the target.
        _crypto = new BodyCrypto(encryptor, _options.JsonProcessor, limits: null, policy: null);
        _time = _options.TimeProvider;
        _counters = new MigrationCounters(_time);
        _budget = new RequestUnitBudget(_options.RequestUnitsPerSecond, _time);
        _logger = _options.LoggerFactory?.CreateLogger<EncryptionMigrationJob>();
        _parallelism = new SemaphoreSlim(_options.MaxDegreeOfParallelism, _options.MaxDegreeOfParallelism);
    }

    /// <summary>
    /// First reads the container once and refuses a target that takes away an encryption the options do not name
    /// (see the exceptions); then runs this instance until the container is in the target state (the estimator reports no lag, nothing is in
    /// flight, and a verification scan finds nothing outside the target state but reported failures), or, with
    /// <see cref="EncryptionMigrationOptions.RunUntilCancelled"/>, until cancelled.
    /// </summary>
    /// <param name="progress">Receives a snapshot every <see cref="EncryptionMigrationOptions.ProgressInterval"/> and at the end; or <see langword="null"/>.</param>
    /// <param name="cancellationToken">
    /// Stops the instance cleanly: the processor is stopped, batches in flight are abandoned before their checkpoint
    /// (their documents are judged again on the next run; those already rewritten are then skipped), and the result
    /// is returned with <see cref="EncryptionMigrationResult.Completed"/> <see langword="false"/>. A cancellation
    /// before the processor has started throws <see cref="OperationCanceledException"/>.
    /// </param>
    /// <returns>The counts, the failures and the verification.</returns>
    /// <exception cref="InvalidOperationException">The job is already running.</exception>
    /// <exception cref="ObjectDisposedException">The job was disposed.</exception>
    /// <exception cref="CosmosException">The container or the lease container cannot be read.</exception>
    /// <exception cref="EncryptionException">
    /// <see cref="EncryptionErrorKind.InvalidOptions"/>: before its first write the job read the container and found that
    /// the target would decrypt a path, or change a path's encryption type, that the options do not name
    /// (<see cref="EncryptionMigrationOptions.AllowedDecryptPaths"/>, <see cref="EncryptionMigrationOptions.AllowedEncryptionTypeChangePaths"/>);
    /// the message says which paths, what would happen and in how many documents; or the target policy binds
    /// (<see cref="ContainerEncryptionPolicy.Bind"/>) and the container cannot be bound (a partition-key path that is
    /// not a top-level property). Nothing was written.
    /// </exception>
    public async Task<EncryptionMigrationResult> RunAsync(IProgress<EncryptionMigrationProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(_disposed.IsCancellationRequested, this);
        if (Interlocked.Exchange(ref _running, 1) != 0)
        {
            throw new InvalidOperationException("The migration job is already running.");
        }

        var runEnded = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Volatile.Write(ref _runEnded, runEnded);
        try
        {
            using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, _disposed.Token);
            await PrepareAsync(stop.Token).ConfigureAwait(false);
            await EnsureTargetAllowedAsync(stop.Token).ConfigureAwait(false);
            if (_copy is null)
            {
                await PrepareVerificationAsync(stop.Token).ConfigureAwait(false);
            }
            ChangeFeedProcessor processor = await StartProcessorAsync(stop.Token).ConfigureAwait(false);
            if (_logger is { } logger)
            {
                EncryptionLog.MigrationStarted(logger, _options.ProcessorName, _options.InstanceName);
            }

            EncryptionMigrationStatus? verification = null;
            bool completed = false;
            var board = new JobActivityBoard(_leaseContainer, _options.ProcessorName, _options.InstanceName, _options.ProgressInterval, _budget);
            try
            {
                (completed, verification) = await WatchAsync(progress, board, stop.Token).ConfigureAwait(false);
            }
            finally
            {
                // Stopping releases the leases; checkpoints are those of the batches that finished.
                await processor.StopAsync().ConfigureAwait(false);
                await DrainAsync().ConfigureAwait(false);
                await RemoveQuietlyAsync(board).ConfigureAwait(false);
            }

            await ObserveHelpAsync().ConfigureAwait(false);
            EncryptionMigrationProgress last = Report(progress);
            IReadOnlyList<EncryptionMigrationFailure> failures = _counters.Failures();
            if (_logger is { } stoppedLogger)
            {
                EncryptionLog.MigrationStopped(stoppedLogger, _options.ProcessorName, completed, failures.Count);
            }

            return new EncryptionMigrationResult(completed, last, failures, verification) { CopyVerification = Volatile.Read(ref _copyVerification) };
        }
        finally
        {
            Volatile.Write(ref _running, 0);
            runEnded.TrySetResult();
        }
    }

    // A transient failure of the scan (503, 408, a reset connection) starts it again rather than failing the query.
    /// <summary>Stops a run in progress (as a cancellation would) and releases the job's resources.</summary>
    public async ValueTask DisposeAsync()
    {
        if (_disposed.IsCancellationRequested)
        {
            return;
        }

        await _disposed.CancelAsync().ConfigureAwait(false);
        if (Volatile.Read(ref _runEnded) is { } runEnded)
        {
            // The run sees the cancellation, stops its processor and drains; its end is what is awaited.
            await runEnded.Task.ConfigureAwait(false);
        }

        _parallelism.Dispose();
        _disposed.Dispose();
    }

    private async Task PrepareAsync(CancellationToken cancellationToken)
    {
        if (_migrator is not null)
        {
            return;
        }

        ContainerResponse response = await TransientFailures.RetryAsync(
            token => _container.ReadContainerAsync(cancellationToken: token), _time, cancellationToken).ConfigureAwait(false);
        _budget.Charge(response.RequestCharge);
        ContainerProperties properties = response.Resource;
        _partitionKeyPaths = properties.PartitionKeyPaths is { Count: > 0 } paths ? paths : [properties.PartitionKeyPath];
        if (_copy is not null)
        {
            await PrepareCopyAsync(_copy, _partitionKeyPaths, cancellationToken).ConfigureAwait(false);
            _migrator = new DocumentMigrator(new MigratedContainer(_container, _partitionKeyPaths, _crypto, _target), _budget, _counters, _logger, _time);
            return;
        }

        // Where bound cells are bound (as the encryption container binds them): a target that binds and a container
        // that cannot be bound is refused here, before the first write (InvalidOptions).
        _target.Bind($"{_container.Database.Id}/{_container.Id}", _partitionKeyPaths);
        _migrator = new DocumentMigrator(new MigratedContainer(_container, _partitionKeyPaths, _crypto, _target), _budget, _counters, _logger, _time);
    }

    private void LogProgress(EncryptionMigrationProgress progress)
    {
        if (_logger is { } logger)
        {
            EncryptionLog.MigrationProgress(
                logger,
                _options.ProcessorName,
                progress.DocumentsSeen,
                progress.DocumentsRewritten,
                progress.DocumentsSkipped,
                progress.DocumentsFailed,
                progress.Conflicts,
                progress.RequestUnits,
                progress.EstimatedLag,
                progress.EstimatedTimeRemaining);
        }
    }

    private EncryptionMigrationProgress Snapshot() => _counters.Snapshot(_budget.Total, _lastLag);

    // One change feed page of one lease: the processor checkpoints it only when this returns.
    private async Task HandleChangesAsync(ChangeFeedProcessorContext context, Stream changes, CancellationToken processorToken)
    {
        Interlocked.Increment(ref _inFlight);

        // Given up when another instance takes the lease (LeasePages): the exception then ends this instance's work on it.
        using LeasePages.Page page = _leasePages.Begin(context.LeaseToken, processorToken);
        CancellationToken cancellationToken = page.Token;
        try
        {
            // The processor reads a lease's next page only once this returns: waiting here until the page is paid
            // for keeps the feed itself within the budget. Without it a feed that never runs dry (an application
            // writing faster than the budget) drives the balance down for good and starves the rewrites and the
            // verification that would say "done".
            _budget.Charge(context.Headers.RequestCharge);
            await _budget.WaitAsync(cancellationToken).ConfigureAwait(false);
            using var copy = new MemoryStream();
            await changes.CopyToAsync(copy, cancellationToken).ConfigureAwait(false);
            if (_copier is not null)
            {
                await CopyPageAsync(copy.GetBuffer().AsMemory(0, (int)copy.Length), cancellationToken).ConfigureAwait(false);
                return;
            }

            List<StoredDocument> work;
            using (DataEncryptionKeyLease checkKey = await _target.LeaseCheckKeyAsync(cancellationToken).ConfigureAwait(false))
            {
                work = _migrator!.Triage(copy.GetBuffer().AsSpan(0, (int)copy.Length), checkKey);
            }

            if (_options.UseBulkExecution)
            {
                await Task.WhenAll(work.Select(document => _migrator.MigrateAsync(document, cancellationToken))).ConfigureAwait(false);
                return;
            }

            await Task.WhenAll(work.Select(document => MigrateLimitedAsync(document, cancellationToken))).ConfigureAwait(false);
        }
        finally
        {
            if (Interlocked.Decrement(ref _inFlight) == 0)
            {
                Volatile.Read(ref _drained)?.TrySetResult();
            }
        }
    }

    // The processor starts no handler once stopped, but one cancelled mid-page may still be finishing the replaces it
    // sent (they are not abandoned; see DocumentMigrator). The final counts are taken only after they are done.
    private Task DrainAsync()
    {
        var drained = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Volatile.Write(ref _drained, drained);
        if (Interlocked.Read(ref _inFlight) == 0)
        {
            drained.TrySetResult();
        }

        return drained.Task;
    }

    // The degree of parallelism holds over all the leases this instance owns.
    private async Task MigrateLimitedAsync(StoredDocument document, CancellationToken cancellationToken)
    {
        await _parallelism.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            await _migrator!.MigrateAsync(document, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            _parallelism.Release();
        }
    }
}
