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
        bool markerMet = false;
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
            catch (Exception exception) when (TransientFailures.IsTransient(exception, cancellationToken) || IsMarkerAlreadyThere(exception, ref markerMet))
            {
                await StopQuietlyAsync(processor).ConfigureAwait(false);
                await Task.Delay(TransientFailures.Delay(attempt), _time, cancellationToken).ConfigureAwait(false);
            }
        }
    }

    // A 409 Conflict from a start is the SDK writing its lease store's marker and finding it there: written by an
    // earlier attempt whose answer was lost, or by another instance that initialized the store between this one's
    // check and its lock (the SDK checks whether the store is initialized, takes the lock, and writes the marker
    // without checking again; three instances started together met it in SharedSurveyTests). The marker being there,
    // one more start finds the store initialized. Once: a second conflict is not that, and is the SDK's to report.
    private static bool IsMarkerAlreadyThere(Exception exception, ref bool markerMet)
    {
        if (markerMet || exception is not CosmosException { StatusCode: System.Net.HttpStatusCode.Conflict })
        {
            return false;
        }

        markerMet = true;
        return true;
    }

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
