using Encryption.Custom.Migration;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom;

/// <summary>Starting the job's change feed processor, the same for an in-place job and a copy (both follow the feed of the container they read).</summary>
public sealed partial class EncryptionMigrationJob
{
    // The processor's start reads and creates leases; a transient failure there is retried with a new processor
    // (one whose start failed half-way is stopped first, releasing what it acquired).
    private async Task<ChangeFeedProcessor> StartProcessorAsync(CancellationToken cancellationToken)
    {
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
