using Encryption.Custom.Migration;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>The status queries: how far a container is from a target policy, without running the job.</summary>
public sealed partial class EncryptionMigrationJob
{
    /// <summary>
    /// Counts a container's documents against a target state: per data encryption key, without encryption, with
    /// plaintext in a policy path, with paths other than the policy's. Reads every document once (about one request
    /// unit per kilobyte stored, plus the query's per-page cost) and needs no key, so it cannot see whether a path is
    /// encrypted deterministically or randomized (the cell does not say): a document encrypted as the policy says
    /// but with the other encryption type counts in the target state here. After changing a path's encryption type,
    /// use the overload with an <see cref="Encryptor"/>, which checks it as the job does. Safe to run at any time,
    /// also while a job runs.
    /// </summary>
    /// <param name="container">The container, as the SDK gives it (not wrapped).</param>
    /// <param name="targetPolicy">The target state, or <see langword="null"/> for "no encryption".</param>
    /// <param name="cancellationToken">Cancels the scan.</param>
    /// <exception cref="ArgumentNullException"><paramref name="container"/> is null.</exception>
    /// <exception cref="CosmosException">The service refused the query.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public static Task<EncryptionMigrationStatus> GetStatusAsync(Container container, ContainerEncryptionPolicy? targetPolicy, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(container);
        return GetStatusCoreAsync(container, new MigrationTarget(targetPolicy, [], encryptor: null, maxDepth: EncryptionProcessorOptions.MaxAllowedDepth), cancellationToken);
    }

    /// <summary>
    /// Counts a container's documents against a target state exactly as the job judges them: as
    /// <see cref="GetStatusAsync(Container, ContainerEncryptionPolicy?, CancellationToken)"/>, and a document
    /// otherwise in the target state counts there only if each of its paths is encrypted deterministically or
    /// randomized as <paramref name="targetPolicy"/> says. For that its values are decrypted in memory with the target
    /// key (nothing is written, nothing is logged); a document whose values cannot be checked counts as unreadable.
    /// </summary>
    /// <param name="container">The container, as the SDK gives it (not wrapped).</param>
    /// <param name="encryptor">Supplies the target policy's key.</param>
    /// <param name="targetPolicy">The target state, or <see langword="null"/> for "no encryption".</param>
    /// <param name="cancellationToken">Cancels the scan.</param>
    /// <exception cref="ArgumentNullException"><paramref name="container"/> or <paramref name="encryptor"/> is null.</exception>
    /// <exception cref="CosmosException">The service refused the query.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public static async Task<EncryptionMigrationStatus> GetStatusAsync(Container container, Encryptor encryptor, ContainerEncryptionPolicy? targetPolicy, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(container);
        ArgumentNullException.ThrowIfNull(encryptor);
        var target = new MigrationTarget(targetPolicy, [], encryptor, maxDepth: EncryptionProcessorOptions.MaxAllowedDepth);
        if (targetPolicy is not null)
        {
            // The container's scope and partition-key paths, so that bound cells decrypt and their query tokens are
            // checked as the job checks them (one container read).
            ContainerProperties properties = (await TransientFailures.RetryAsync(
                token => container.ReadContainerAsync(cancellationToken: token),
                TimeProvider.System,
                cancellationToken).ConfigureAwait(false)).Resource;
            try
            {
                target.Bind($"{container.Database.Id}/{container.Id}", properties.PartitionKeyPaths is { Count: > 0 } paths ? paths : [properties.PartitionKeyPath]);
            }
            catch (EncryptionException)
            {
                // A target that binds and a container that cannot be bound: the job refuses to run; the status counts
                // what it can (bound cells' tokens by their members).
            }
        }

        return await GetStatusCoreAsync(container, target, cancellationToken).ConfigureAwait(false);
    }

    private static async Task<EncryptionMigrationStatus> GetStatusCoreAsync(Container container, MigrationTarget target, CancellationToken cancellationToken)
    {
        (EncryptionMigrationStatus status, _) = await TransientFailures.RetryAsync(
            token => StatusScan.RunAsync(container, target, EncryptionProcessorOptions.MaxAllowedDepth, budget: null, unexplained: null, token),
            TimeProvider.System,
            cancellationToken).ConfigureAwait(false);
        return status;
    }
}
