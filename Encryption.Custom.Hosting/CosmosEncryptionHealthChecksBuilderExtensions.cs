using Encryption.Custom;
using Encryption.Custom.Hosting;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Adds the Cosmos encryption health check (see <c>docs/hosting.md</c>).</summary>
public static class CosmosEncryptionHealthChecksBuilderExtensions
{
    /// <summary>The default name of the check: <c>cosmos-encryption-keys</c>.</summary>
    public const string DefaultName = "cosmos-encryption-keys";

    /// <summary>
    /// Adds a check of the data encryption keys named in <see cref="CosmosEncryptionOptions.DataEncryptionKeyIds"/>:
    /// <paramref name="failureStatus"/> when a key cannot be obtained (encryption and decryption with it fail now),
    /// <see cref="HealthStatus.Degraded"/> when the cached key works but unwrapping it again with the key-encryption key
    /// fails now (it will fail once the cached key expires), healthy otherwise. The description names each failing key and
    /// the kind of error; it never carries key bytes. Each run reads each key's document and calls the key-wrap provider
    /// once per key: choose the probe period with that cost in mind.
    /// </summary>
    /// <param name="builder">The health checks builder (<c>services.AddHealthChecks()</c>).</param>
    /// <param name="name">The check's name. Default: <see cref="DefaultName"/>.</param>
    /// <param name="failureStatus">The status when a key cannot be obtained. Default (null): <see cref="HealthStatus.Unhealthy"/>.</param>
    /// <param name="tags">Tags to filter checks by (for example <c>ready</c>).</param>
    /// <param name="timeout">The check's timeout. Default (null): none beyond the host's.</param>
    /// <returns>The builder.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="builder"/> is null.</exception>
    public static IHealthChecksBuilder AddCosmosEncryptionKeys(
        this IHealthChecksBuilder builder,
        string name = DefaultName,
        HealthStatus? failureStatus = null,
        IEnumerable<string>? tags = null,
        TimeSpan? timeout = null)
    {
        ArgumentNullException.ThrowIfNull(builder);
        return builder.Add(new HealthCheckRegistration(
            name,
            static services => ActivatorUtilities.CreateInstance<DataEncryptionKeyHealthCheck>(services),
            failureStatus,
            tags,
            timeout));
    }
}
