using System.Diagnostics;
using System.Net;
using Microsoft.Azure.Cosmos;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Encryption.Custom.Hosting;

/// <summary>
/// Initializes the DEK container and loads the configured DEKs when the host starts. It works in
/// <see cref="StartingAsync"/>, which the host runs before any hosted service's <c>StartAsync</c>, so hosted
/// services that encrypt find the provider ready; the work is I/O and so does not belong in a DI factory.
/// </summary>
internal sealed class CosmosEncryptionInitializer(
    CosmosClient client,
    CosmosDataEncryptionKeyProvider keyProvider,
    IOptions<CosmosEncryptionOptions> options,
    IEnumerable<ProvisionedDataEncryptionKey> provisionedKeys,
    WarmUpLogs warmUpLogs,
    ILogger<CosmosEncryptionInitializer> logger) : IHostedLifecycleService
{
    public async Task StartingAsync(CancellationToken cancellationToken)
    {
        CosmosEncryptionOptions settings = options.Value;
        Database database = client.GetDatabase(settings.DatabaseId);
        if (InitializedContainer() is { } initialized)
        {
            // The application initialized the provider itself (before the host started): the same container is
            // accepted as it is, rather than failing the start with "already initialized"; another one is refused.
            if (!string.Equals(initialized.Database.Id, settings.DatabaseId, StringComparison.Ordinal)
                || !string.Equals(initialized.Id, settings.KeyContainerId, StringComparison.Ordinal))
            {
                throw new InvalidOperationException(
                    $"The data encryption key provider was initialized with the container '{initialized.Id}' of database '{initialized.Database.Id}', "
                    + $"but {nameof(CosmosEncryptionOptions)} names '{settings.KeyContainerId}' of '{settings.DatabaseId}'. Leave the initialization to the host "
                    + "(to create DEKs at start, use CosmosEncryptionBuilder.CreateDataEncryptionKeyIfNotExists).");
            }
        }
        else if (settings.CreateKeyContainerIfNotExists)
        {
            try
            {
                await keyProvider.InitializeAsync(database, settings.KeyContainerId!, cancellationToken).ConfigureAwait(false);
            }
            catch (CosmosException notFound) when (notFound.StatusCode == HttpStatusCode.NotFound)
            {
                // The container is created when missing, the database never: the SDK's 404 does not say which.
                throw new InvalidOperationException(
                    $"Cosmos encryption could not start: {KeyContainerProbe.MissingDatabase(settings.DatabaseId!)}. The DEK container is created when missing, its database is not: create it, or correct the option.",
                    notFound);
            }
        }
        else
        {
            Container keyContainer = database.GetContainer(settings.KeyContainerId);
            keyProvider.Initialize(keyContainer);

            // Used as it is: a missing one is a configuration mistake to report now, by name, not as a bare 404 later.
            if (await KeyContainerProbe.FindMissingAsync(keyContainer, cancellationToken).ConfigureAwait(false) is { } missing)
            {
                throw new InvalidOperationException(
                    $"Cosmos encryption could not start: {missing}. Create it, correct the option, or set {nameof(CosmosEncryptionOptions)}.{nameof(CosmosEncryptionOptions.CreateKeyContainerIfNotExists)} to true.");
            }
        }

        HostingLog.KeyContainerInitialized(logger, settings.DatabaseId!, settings.KeyContainerId!);
        foreach (ProvisionedDataEncryptionKey key in provisionedKeys)
        {
            await ProvisionAsync(key, cancellationToken).ConfigureAwait(false);
        }

        await WarmUpAsync(settings, cancellationToken).ConfigureAwait(false);
    }

    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StartedAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StoppingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StoppedAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    private Container? InitializedContainer()
    {
        try
        {
            return keyProvider.Container;
        }
        catch (InvalidOperationException)
        {
            // Not initialized: the provider offers no other way to ask.
            return null;
        }
    }

    // Read first, so that a start with the DEK in place costs one point read, not a wrap and an unwrap; a 409 on the
    // create is another instance that created it meanwhile, which is what was asked for.
    private async Task ProvisionAsync(ProvisionedDataEncryptionKey key, CancellationToken cancellationToken)
    {
        using (ResponseMessage existing = await keyProvider.Container.ReadItemStreamAsync(key.Id, new PartitionKey(key.Id), cancellationToken: cancellationToken).ConfigureAwait(false))
        {
            if (existing.StatusCode != HttpStatusCode.NotFound)
            {
                existing.EnsureSuccessStatusCode();
                HostingLog.DataEncryptionKeyExists(logger, key.Id);
                return;
            }
        }

        string keyEncryptionKey = key.KeyWrapMetadata.Name ?? key.KeyWrapMetadata.Value;
        try
        {
            await keyProvider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(key.Id, key.EncryptionAlgorithm, key.KeyWrapMetadata, cancellationToken: cancellationToken).ConfigureAwait(false);
            HostingLog.DataEncryptionKeyCreated(logger, key.Id, keyEncryptionKey);
        }
        catch (CosmosException conflict) when (conflict.StatusCode == HttpStatusCode.Conflict)
        {
            HostingLog.DataEncryptionKeyExists(logger, key.Id);
        }
        catch (Exception exception) when (exception is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            throw new InvalidOperationException(
                $"Cosmos encryption could not create the data encryption key '{key.Id}' wrapped by the key-encryption key '{keyEncryptionKey}' at start ({DiagnosticNames.GetErrorType(exception)}).",
                exception);
        }
    }

    private async Task WarmUpAsync(CosmosEncryptionOptions settings, CancellationToken cancellationToken)
    {
        string[] ids = settings.DataEncryptionKeyIds.Distinct(StringComparer.Ordinal).ToArray();
        if (ids.Length == 0)
        {
            return;
        }

        long started = Stopwatch.GetTimestamp();
        Exception?[] failures = await Task.WhenAll(ids.Select(id => LoadAsync(id, settings.EncryptionAlgorithm, cancellationToken))).ConfigureAwait(false);
        cancellationToken.ThrowIfCancellationRequested();
        int failed = failures.Count(failure => failure is not null);
        TimeSpan elapsed = Stopwatch.GetElapsedTime(started);
        HostingLog.WarmUpFinished(logger, ids.Length - failed, ids.Length, elapsed);
        if (failed == 0)
        {
            return;
        }

        // Each failure is reported once (WarmUpLogs: the provider's own entry was left out): logged here with its
        // exception when the host starts anyway, else carried by the exception that fails the start, which the host
        // logs (logging it here as well gave the same failure three entries and two stacks).
        if (!settings.FailStartOnWarmUpError)
        {
            foreach ((string id, Exception? failure) in ids.Zip(failures))
            {
                if (failure is not null)
                {
                    HostingLog.WarmUpFailed(logger, id, DiagnosticNames.GetErrorType(failure), failure);
                }
            }

            return;
        }

        string summary = string.Join(", ", ids.Zip(failures).Where(pair => pair.Second is not null)
            .Select(pair => $"'{pair.First}' ({DiagnosticNames.GetErrorType(pair.Second!)})"));
        throw new InvalidOperationException(
            $"Cosmos encryption could not load {failed} of {ids.Length} data encryption keys at start: {summary}. " +
            $"Set {nameof(CosmosEncryptionOptions.FailStartOnWarmUpError)} to false to start anyway.",
            failures.First(failure => failure is not null));
    }

    private async Task<Exception?> LoadAsync(string id, string algorithm, CancellationToken cancellationToken)
    {
        using IDisposable warming = warmUpLogs.Warming(id);
        try
        {
            // The key stays cached (the provider owns it); the warm-up only needs it loaded.
            _ = await keyProvider.FetchDataEncryptionKeyAsync(id, algorithm, cancellationToken).ConfigureAwait(false);
            return null;
        }
        catch (Exception exception) when (exception is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            return exception;
        }
    }
}
