using Microsoft.Azure.Cosmos;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Options;

namespace Encryption.Custom.Hosting;

/// <summary>
/// Can the configured DEKs be used, and unwrapped, now? Per key: obtain it through the provider (its cache, or a load)
/// — failure means encryption with it fails now; then read its document and unwrap it again with the key-wrap provider
/// — failure means the cached key works but will not be renewed (a revoked or missing key-encryption key, a Key Vault
/// outage). The unwrapped bytes are disposed (zeroed) at once and never leave this class.
/// </summary>
internal sealed class DataEncryptionKeyHealthCheck(
    CosmosDataEncryptionKeyProvider keyProvider,
    IOptions<CosmosEncryptionOptions> options) : IHealthCheck
{
    public async Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        CosmosEncryptionOptions settings = options.Value;
        string[] ids = settings.DataEncryptionKeyIds.Distinct(StringComparer.Ordinal).ToArray();
        if (ids.Length == 0)
        {
            // Nothing to check is not "healthy": a misspelt configuration key (DataEncryptionKeyId, singular) leaves
            // the list empty, and a check that then says Healthy hides it.
            return HealthCheckResult.Degraded(
                "No data encryption key is configured, so none was checked: set CosmosEncryptionOptions.DataEncryptionKeyIds (configuration key 'DataEncryptionKeyIds', a list) to the DEKs the application uses.");
        }

        KeyState[] states = await Task.WhenAll(ids.Select(id => CheckAsync(id, settings.EncryptionAlgorithm, cancellationToken))).ConfigureAwait(false);
        var data = new Dictionary<string, object>(StringComparer.Ordinal);
        foreach (KeyState state in states)
        {
            data[state.Id] = state.Problem ?? "ok";
        }

        KeyState[] notRenewable = states.Where(state => state.Problem is not null).ToArray();
        if (notRenewable.Length == 0)
        {
            return HealthCheckResult.Healthy($"{ids.Length} data encryption key(s) can be unwrapped.", data);
        }

        // A failed key may be a missing database or DEK container (a configuration mistake, or deleted since the
        // start): one more read says which, so the report names the resource and its option instead of a bare 404.
        string? missing = await KeyContainerProbe.FindMissingAsync(keyProvider.Container, cancellationToken).ConfigureAwait(false);
        if (missing is not null)
        {
            data["resource"] = missing;
        }

        KeyState[] unusable = states.Where(state => !state.Usable).ToArray();
        return unusable.Length > 0
            ? new HealthCheckResult(context.Registration.FailureStatus, Describe("cannot be used", unusable, missing), unusable[0].Exception, data)
            : HealthCheckResult.Degraded(Describe("work from the cache but cannot be unwrapped now", notRenewable, missing), notRenewable[0].Exception, data);
    }

    private static string Describe(string what, KeyState[] states, string? missing) =>
        $"Data encryption key(s) {what}: " + string.Join(", ", states.Select(state => $"'{state.Id}' ({state.Problem})"))
        + (missing is null ? "." : $": {missing}.");

    private async Task<KeyState> CheckAsync(string id, string algorithm, CancellationToken cancellationToken)
    {
        try
        {
            _ = await keyProvider.FetchDataEncryptionKeyAsync(id, algorithm, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            return new KeyState(id, Usable: false, DiagnosticNames.GetErrorType(exception), exception);
        }

        try
        {
            ItemResponse<DataEncryptionKeyProperties> document =
                await keyProvider.DataEncryptionKeyContainer.ReadDataEncryptionKeyAsync(id, cancellationToken: cancellationToken).ConfigureAwait(false);
            DataEncryptionKeyProperties properties = document.Resource;
            using EncryptionKeyUnwrapResult unwrapped = await keyProvider.EncryptionKeyWrapProvider.UnwrapKeyAsync(
                properties.WrappedDataEncryptionKey, properties.EncryptionKeyWrapMetadata, cancellationToken).ConfigureAwait(false);
            return new KeyState(id, Usable: true, Problem: null, Exception: null);
        }
        catch (Exception exception) when (exception is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            return new KeyState(id, Usable: true, DiagnosticNames.GetErrorType(exception), exception);
        }
    }

    private sealed record KeyState(string Id, bool Usable, string? Problem, Exception? Exception);
}
