using Encryption.Custom.Cosmos.Processing;
using Encryption.Custom.Json.Inspection;
using Encryption.Custom.Migration;
using Encryption.Custom.Migration.Copy;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>
/// The copy: the same job (change feed processor on the source, options, budget, retries, progress, completion rule
/// over every instance, logging) writing each document into another container instead of replacing it in place. Needed
/// when the target changes how documents are addressed (an encrypted id or partition key, or a new key for them), which
/// no in-place replace can do. docs/migration.md, "Copying into a new container".
/// </summary>
public sealed partial class EncryptionMigrationJob
{
    private readonly CopyEnds? _copy;
    private DocumentCopier? _copier;
    private EncryptionCopyStatus? _copyVerification;

    /// <summary>
    /// Creates a job that copies <paramref name="sourceContainer"/> into <paramref name="targetContainer"/> under
    /// <paramref name="targetPolicy"/>, while the application keeps using the source: each document the source's
    /// change feed shows is decrypted in memory with <paramref name="sourcePolicy"/> and upserted into the target
    /// through an encryption container with the target policy, under the partition key its plaintext holds at the
    /// target's partition key paths. Nothing is read or written before <see cref="RunAsync"/>; the source is never written.
    /// </summary>
    /// <param name="sourceContainer">The container to copy, as the SDK gives it (not wrapped with <c>WithEncryptor</c>).</param>
    /// <param name="sourcePolicy">
    /// The policy the source's documents are read with, as the application reads them (a read-both mode reads plaintext
    /// and encrypted documents alike), or <see langword="null"/> to read each document with the key it names. Either
    /// way a document is copied only under a key of the source policy, of the target policy, or of
    /// <see cref="EncryptionMigrationOptions.AcceptedSourceDataEncryptionKeyIds"/>; any other is reported (<see cref="EncryptionErrorKind.KeyNotAccepted"/>).
    /// </param>
    /// <param name="targetContainer">The container to copy into, already created (its partition key definition may differ from the source's), as the SDK gives it.</param>
    /// <param name="targetPolicy">The policy the copies are written with, or <see langword="null"/> for plaintext copies.</param>
    /// <param name="encryptor">Supplies the source and target keys.</param>
    /// <param name="leaseContainer">The change feed processor's lease container (partition key <c>/id</c>), shared by the instances.</param>
    /// <param name="options">How the job runs; <see langword="null"/> for the defaults. As for an in-place job, a target that would store an encrypted path of the source as plaintext, or change its encryption type, is refused unless the options name the path.</param>
    /// <exception cref="ArgumentNullException">A required argument is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="targetContainer"/> is <paramref name="sourceContainer"/>.</exception>
    public EncryptionMigrationJob(
        Container sourceContainer,
        ContainerEncryptionPolicy? sourcePolicy,
        Container targetContainer,
        ContainerEncryptionPolicy? targetPolicy,
        Encryptor encryptor,
        Container leaseContainer,
        EncryptionMigrationOptions? options = null)
        : this(sourceContainer, encryptor, targetPolicy, leaseContainer, options, sourcePolicy)
    {
        ArgumentNullException.ThrowIfNull(targetContainer);
        _copy = new CopyEnds(sourceContainer, sourcePolicy, targetContainer, targetPolicy, encryptor, _options.JsonProcessor);
    }

    /// <summary>
    /// Where a copy stands: counts the target's documents against <paramref name="targetPolicy"/> (with the key, as
    /// <see cref="GetStatusAsync(Container, Encryptor, ContainerEncryptionPolicy?, CancellationToken)"/> does), then reads every
    /// source document through <paramref name="sourcePolicy"/>, looks it up in the target by its plaintext id and
    /// partition key through an encryption container with <paramref name="targetPolicy"/>, and compares the two
    /// decrypted in memory (system properties aside). Costs one read of each container and one point read per source
    /// document; nothing is written or logged. Safe at any time, also while a copy runs.
    /// </summary>
    /// <param name="sourceContainer">The copied container, as the SDK gives it.</param>
    /// <param name="sourcePolicy">The policy its documents are read with, or <see langword="null"/>.</param>
    /// <param name="targetContainer">The container copied into, as the SDK gives it.</param>
    /// <param name="targetPolicy">The policy the copies should be in, or <see langword="null"/>.</param>
    /// <param name="encryptor">Supplies the source and target keys.</param>
    /// <param name="cancellationToken">Cancels the scan.</param>
    /// <exception cref="ArgumentNullException">A required argument is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="targetContainer"/> is <paramref name="sourceContainer"/>.</exception>
    /// <exception cref="CosmosException">The service refused a request for good.</exception>
    /// <exception cref="EncryptionException">The target policy binds and the target container cannot be bound (<see cref="EncryptionErrorKind.InvalidOptions"/>).</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public static async Task<EncryptionCopyStatus> GetCopyStatusAsync(
        Container sourceContainer,
        ContainerEncryptionPolicy? sourcePolicy,
        Container targetContainer,
        ContainerEncryptionPolicy? targetPolicy,
        Encryptor encryptor,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(sourceContainer);
        ArgumentNullException.ThrowIfNull(targetContainer);
        ArgumentNullException.ThrowIfNull(encryptor);
        var ends = new CopyEnds(sourceContainer, sourcePolicy, targetContainer, targetPolicy, encryptor, JsonProcessor.Stream);
        var target = new MigrationTarget(targetPolicy, [], encryptor, maxDepth: EncryptionProcessorOptions.MaxAllowedDepth);
        ends.SourcePartitionKeyPaths = await ReadPartitionKeyPathsAsync(sourceContainer, budget: null, TimeProvider.System, cancellationToken).ConfigureAwait(false);
        ends.TargetPartitionKeyPaths = await ReadPartitionKeyPathsAsync(targetContainer, budget: null, TimeProvider.System, cancellationToken).ConfigureAwait(false);
        target.Bind($"{targetContainer.Database.Id}/{targetContainer.Id}", ends.TargetPartitionKeyPaths);
        ends.TargetState = target;
        (EncryptionCopyStatus status, _) = await CopyScan.RunAsync(
            ends, budget: null, isExplained: null, outstanding: null, EncryptionMigrationOptions.DefaultMaxDegreeOfParallelism, TimeProvider.System, cancellationToken).ConfigureAwait(false);
        return status;
    }

    private static async Task<IReadOnlyList<string>> ReadPartitionKeyPathsAsync(Container container, RequestUnitBudget? budget, TimeProvider time, CancellationToken cancellationToken)
    {
        ContainerResponse response = await TransientFailures.RetryAsync(
            token => container.ReadContainerAsync(cancellationToken: token), time, cancellationToken).ConfigureAwait(false);
        budget?.Charge(response.RequestCharge);
        ContainerProperties properties = response.Resource;
        return properties.PartitionKeyPaths is { Count: > 0 } paths ? paths : [properties.PartitionKeyPath];
    }

    // The copy's preparation: the target's partition key paths (where each copy's key is read from its plaintext), and
    // the target state bound to the target container (its status scan reads bound copies as the target view wrote them).
    private async Task PrepareCopyAsync(CopyEnds copy, IReadOnlyList<string> sourcePartitionKeyPaths, CancellationToken cancellationToken)
    {
        copy.TargetPartitionKeyPaths = await ReadPartitionKeyPathsAsync(copy.Target, _budget, _time, cancellationToken).ConfigureAwait(false);
        _target.Bind($"{copy.Target.Database.Id}/{copy.Target.Id}", copy.TargetPartitionKeyPaths);
        copy.SourcePartitionKeyPaths = sourcePartitionKeyPaths;
        copy.TargetState = _target;
        _copier = new DocumentCopier(copy, _budget, _counters, _logger, _time);
    }

    // One change feed page of the source, copied document by document within the job's parallelism (or all at once
    // for bulk). Every document is written: an upsert of the same plaintext is harmless, and judging "already copied"
    // would cost a read of the target per document, about what the write costs.
    private async Task CopyPageAsync(ReadOnlyMemory<byte> page, CancellationToken cancellationToken)
    {
        var documents = new List<StoredDocument>();
        Range[] ranges = FeedPageDocuments.Split(page.Span, _crypto.Processor.MaxDepth);
        _counters.AddSeen(ranges.Length);
        foreach (Range range in ranges)
        {
            if (StoredDocument.Read(page[range].ToArray(), _copy!.SourcePartitionKeyPaths, null) is { } document)
            {
                documents.Add(document);
            }
        }

        await Task.WhenAll(documents.Select(document => _options.UseBulkExecution
            ? _copier!.CopyAsync(document, cancellationToken)
            : WithParallelismAsync(() => _copier!.CopyAsync(document, cancellationToken), cancellationToken))).ConfigureAwait(false);
    }

    private async Task WithParallelismAsync(Func<Task> work, CancellationToken cancellationToken)
    {
        await _parallelism.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            await work().ConfigureAwait(false);
        }
        finally
        {
            _parallelism.Release();
        }
    }

    // The copy's verification: the target scanned against the target policy, every source document found there with
    // its data; the source documents that are not (missing, older, unreadable there) are handed to the sweep.
    private async Task<(EncryptionMigrationStatus Status, long Unexplained)> VerifyCopyAsync(CopyEnds copy, List<StoredDocument> outstanding, CancellationToken cancellationToken)
    {
        (EncryptionCopyStatus status, long unexplained) = await CopyScan.RunAsync(
            copy, _budget, IsReportedFailure, outstanding, _options.MaxDegreeOfParallelism, _time, cancellationToken).ConfigureAwait(false);
        Volatile.Write(ref _copyVerification, status);

        // Target documents outside the target state are not the copy's writes (those go through the target policy):
        // nothing the sweep can fix from the source, so they keep the run from completing, and the status names them.
        return (status.Target, unexplained + status.Target.DocumentsOutsideTargetState);
    }

}
