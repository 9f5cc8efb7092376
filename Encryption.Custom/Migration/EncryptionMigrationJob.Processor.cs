using Encryption.Custom.Migration;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>Starting the job's change feed processor, the same for an in-place job and a copy (both follow the feed of the container they read).</summary>
public sealed partial class EncryptionMigrationJob
{
    private bool _startsBesideOthers;

    /// <summary>
    /// How long after its survey an instance that starts beside others waits before its processor starts: a fraction of
    /// <see cref="EncryptionMigrationOptions.LeaseAcquireInterval"/> fixed by its name. The SDK's balancing runs a round
    /// at the processor's start and then every interval, and in a round takes at most one lease from the instance that
    /// holds the most, always the same one of its leases: instances whose rounds run in step (added to a running job
    /// together, or started together) all reach for that lease and all but one lose it (412), round after round; of
    /// four, the last got its first lease 8.6 s after it started (docs/migration.md, "Scaling with instances"). Offset
    /// within the interval, each round sees the leases taken before it in the same interval and reaches for another.
    /// An instance that surveyed every range itself started alone, and waits for nothing. At most 2 s, whatever the
    /// interval: rounds a few hundred milliseconds apart already see each other's steals (a round is a read of the
    /// leases and a replace), and a long interval must not hold a new instance back for as long.
    /// </summary>
    internal TimeSpan BalancingOffset => _startsBesideOthers
        ? TimeSpan.FromTicks(Math.Min(_options.LeaseAcquireInterval.Ticks, s_maxBalancingOffset.Ticks) / 1000 * (RangeClaims.StableHash(_options.InstanceName) % 1000))
        : TimeSpan.Zero;

    private static readonly TimeSpan s_maxBalancingOffset = TimeSpan.FromSeconds(2);

    // The processor's start reads and creates leases; a transient failure there is retried with a new processor
    // (one whose start failed half-way is stopped first, releasing what it acquired).
    private async Task<ChangeFeedProcessor> StartProcessorAsync(CancellationToken cancellationToken)
    {
        if (BalancingOffset > TimeSpan.Zero)
        {
            await Task.Delay(BalancingOffset, _time, cancellationToken).ConfigureAwait(false);
        }

        for (int attempt = 0; ; attempt++)
        {
            ChangeFeedProcessor processor = _container
                .GetChangeFeedProcessorBuilder(_options.ProcessorName, HandleChangesAsync)
                .WithInstanceName(_options.InstanceName)
                .WithLeaseContainer(_leaseContainer)
                .WithStartTime(DateTime.MinValue.ToUniversalTime())
                .WithPollInterval(_options.PollInterval)
                .WithMaxItems(_options.MaxItemsPerBatch)
                .WithLeaseConfiguration(
                    acquireInterval: _options.LeaseAcquireInterval,
                    expirationInterval: _options.LeaseExpirationInterval,
                    renewInterval: _options.LeaseRenewInterval)
                .Build();
            try
            {
                await processor.StartAsync().ConfigureAwait(false);
                return processor;
            }
            catch (Exception exception) when (TransientFailures.IsTransient(exception, cancellationToken) || IsLeftOverFromEarlierAttempt(exception, attempt))
            {
                await StopQuietlyAsync(processor).ConfigureAwait(false);
                await Task.Delay(TransientFailures.Delay(attempt), _time, cancellationToken).ConfigureAwait(false);
            }
        }
    }

    // A start that failed transiently may have written its lease store's marker anyway (the answer was lost): the
    // SDK's next start then meets 409 Conflict creating it again. The marker is there, so one more start finds the
    // store initialized. Only after a failed attempt: a 409 on a first start is the SDK's to report.
    private static bool IsLeftOverFromEarlierAttempt(Exception exception, int attempt) =>
        attempt > 0 && exception is CosmosException { StatusCode: System.Net.HttpStatusCode.Conflict };

    private static async Task StopQuietlyAsync(ChangeFeedProcessor processor)
    {
        try
        {
            await processor.StopAsync().ConfigureAwait(false);
        }
#pragma warning disable CA1031 // The SDK's StopAsync on a processor whose start failed throws whatever its half-built state gives (a NullReferenceException, seen under injected faults).
        catch (Exception)
#pragma warning restore CA1031
        {
            // Nothing was running; a lease it may hold expires by itself. The start's own failure is what is retried.
        }
    }
}
