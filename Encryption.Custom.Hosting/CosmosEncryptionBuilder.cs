using Azure.Core;
using Encryption.Custom.AzureKeyVault;
using Encryption.Custom.Hosting;
using Microsoft.Azure.Cosmos;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace Encryption.Custom;

/// <summary>
/// Completes <c>AddCosmosEncryption</c>: the key-wrap provider (exactly one) and the encrypted containers. Every
/// registration is a singleton; nothing here does I/O (the hosted service does, when the host starts).
/// </summary>
public sealed class CosmosEncryptionBuilder
{
    internal CosmosEncryptionBuilder(IServiceCollection services)
    {
        Services = services;
    }

    /// <summary>The service collection the registrations go to.</summary>
    public IServiceCollection Services { get; }

    /// <summary>
    /// Uses a <see cref="LocalKeyWrapProvider"/> (key-encryption keys held in this process; for development and tests)
    /// with the keys that <paramref name="addKeys"/> adds, for example from files outside the repository.
    /// The container disposes the provider (zeroing its keys).
    /// </summary>
    /// <param name="addKeys">Adds the keys (<c>AddAesKey</c>, <c>AddJsonWebKeyFile</c>, <c>AddRsaPemFile</c>, ...).</param>
    /// <param name="configure">Sets the provider's options; null for the defaults.</param>
    /// <returns>This builder.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="addKeys"/> is null.</exception>
    /// <exception cref="InvalidOperationException">A key-wrap provider is already registered.</exception>
    public CosmosEncryptionBuilder UseLocalKeyWrapProvider(
        Action<IServiceProvider, LocalKeyWrapProvider> addKeys,
        Action<LocalKeyWrapProviderOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(addKeys);
        return UseKeyWrapProvider(services =>
        {
            var options = new LocalKeyWrapProviderOptions();
            configure?.Invoke(options);
            var provider = new LocalKeyWrapProvider(options);
            try
            {
                addKeys(services, provider);
                return provider;
            }
            catch
            {
                provider.Dispose();
                throw;
            }
        });
    }

    /// <summary>
    /// Uses an <see cref="AzureKeyVaultKeyWrapProvider"/>, authenticated with <paramref name="credential"/> or, when it
    /// is null, with the <see cref="TokenCredential"/> registered in the container (for example
    /// <c>services.AddSingleton&lt;TokenCredential&gt;(new DefaultAzureCredential())</c>). The identity needs the key
    /// permissions wrapKey and unwrapKey.
    /// </summary>
    /// <param name="credential">The identity; null to resolve a <see cref="TokenCredential"/> from the container.</param>
    /// <param name="configure">Sets the provider's options (retries, cache time to live, ...); null for the defaults.</param>
    /// <returns>This builder.</returns>
    /// <exception cref="InvalidOperationException">A key-wrap provider is already registered.</exception>
    public CosmosEncryptionBuilder UseAzureKeyVaultKeyWrapProvider(
        TokenCredential? credential = null,
        Action<AzureKeyVaultKeyWrapProviderOptions>? configure = null) =>
        UseKeyWrapProvider(services =>
        {
            TokenCredential identity = credential ?? services.GetService<TokenCredential>()
                ?? throw new InvalidOperationException(
                    $"{nameof(UseAzureKeyVaultKeyWrapProvider)} was given no credential and no {nameof(TokenCredential)} is registered: pass one, or register one (for example DefaultAzureCredential).");
            var options = new AzureKeyVaultKeyWrapProviderOptions();
            configure?.Invoke(options);
            return new AzureKeyVaultKeyWrapProvider(identity, options);
        });

    /// <summary>
    /// Uses the key-wrap provider <paramref name="factory"/> creates (once; the container disposes it if it is
    /// disposable). For a provider of your own, or one that routes between several key stores during a migration.
    /// </summary>
    /// <param name="factory">Creates the provider.</param>
    /// <returns>This builder.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="factory"/> is null.</exception>
    /// <exception cref="InvalidOperationException">A key-wrap provider is already registered.</exception>
    public CosmosEncryptionBuilder UseKeyWrapProvider(Func<IServiceProvider, EncryptionKeyWrapProvider> factory)
    {
        ArgumentNullException.ThrowIfNull(factory);

        // DEKs are wrapped by one provider; two registrations would silently hand one of them every key.
        if (Services.Any(service => service.ServiceType == typeof(EncryptionKeyWrapProvider)))
        {
            throw new InvalidOperationException(
                "A key-wrap provider is already registered for Cosmos encryption; register one (to use several key stores, register a provider of your own that routes by EncryptionKeyWrapMetadata.Type).");
        }

        Services.AddSingleton(factory);
        return this;
    }

    /// <summary>
    /// Creates the DEK <paramref name="id"/>, wrapped by the key-encryption key <paramref name="keyWrapMetadata"/>
    /// names, when the host starts and the DEK container does not hold it yet (after the container is initialized,
    /// before the warm-up). An existing DEK is left as it is, whatever key wraps it (rotate with
    /// <see cref="DataEncryptionKeyContainer.RewrapDataEncryptionKeyAsync"/>); two instances starting at once create it
    /// once. Off unless called: provisioning keys is a deployment decision. A DEK that cannot be created fails the start.
    /// Add the id to <see cref="CosmosEncryptionOptions.DataEncryptionKeyIds"/> as well to warm it and check its health.
    /// </summary>
    /// <param name="id">The DEK id (documents name it in <c>_ei._en</c>).</param>
    /// <param name="keyWrapMetadata">
    /// The key-encryption key, from the registered provider's factory: <see cref="LocalKeyWrapProvider.CreateMetadata"/> or
    /// <see cref="AzureKeyVaultKeyWrapProvider.CreateMetadata(Uri, string)"/>.
    /// </param>
    /// <param name="encryptionAlgorithm">The DEK's algorithm. Default: <see cref="CosmosEncryptionOptions.DefaultEncryptionAlgorithm"/>.</param>
    /// <returns>This builder.</returns>
    /// <exception cref="ArgumentException"><paramref name="id"/> or <paramref name="encryptionAlgorithm"/> is null or empty, or the id is already named.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="keyWrapMetadata"/> is null.</exception>
    public CosmosEncryptionBuilder CreateDataEncryptionKeyIfNotExists(
        string id,
        EncryptionKeyWrapMetadata keyWrapMetadata,
        string encryptionAlgorithm = CosmosEncryptionOptions.DefaultEncryptionAlgorithm)
    {
        ArgumentException.ThrowIfNullOrEmpty(id);
        ArgumentNullException.ThrowIfNull(keyWrapMetadata);
        ArgumentException.ThrowIfNullOrEmpty(encryptionAlgorithm);

        // Two calls for one id could name two key-encryption keys; which one won would depend on the order of start.
        if (Services.Any(service => service.ImplementationInstance is ProvisionedDataEncryptionKey existing && string.Equals(existing.Id, id, StringComparison.Ordinal)))
        {
            throw new ArgumentException($"The data encryption key '{id}' is already to be created at start.", nameof(id));
        }

        Services.AddSingleton(new ProvisionedDataEncryptionKey(id, keyWrapMetadata, encryptionAlgorithm));
        return this;
    }

    /// <summary>
    /// Registers the container <paramref name="containerId"/> of the database <paramref name="databaseId"/>, wrapped
    /// with the registered <see cref="CosmosEncryptor"/>, as a keyed <see cref="Container"/> singleton under
    /// <paramref name="name"/>: inject it with <c>[FromKeyedServices("name")] Container container</c> or resolve it with
    /// <c>GetRequiredKeyedService&lt;Container&gt;("name")</c>. The <see cref="CosmosClient"/> is the one registered in the
    /// container. The container's <see cref="EncryptionContainerOptions"/> are the named options <paramref name="name"/>,
    /// set by <paramref name="configure"/> (and by any other <c>Configure&lt;EncryptionContainerOptions&gt;(name, ...)</c>).
    /// </summary>
    /// <param name="name">The service key; unique among encrypted containers.</param>
    /// <param name="databaseId">The database id.</param>
    /// <param name="containerId">The container id.</param>
    /// <param name="configure">Sets the container's options (processor, limits, patch retries); null for the defaults.</param>
    /// <returns>This builder.</returns>
    /// <exception cref="ArgumentException">An id or the name is null or empty, or the name is already used.</exception>
    public CosmosEncryptionBuilder AddEncryptedContainer(
        string name,
        string databaseId,
        string containerId,
        Action<EncryptionContainerOptions>? configure = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        ArgumentException.ThrowIfNullOrEmpty(databaseId);
        ArgumentException.ThrowIfNullOrEmpty(containerId);
        if (Services.Any(service => service.IsKeyedService && service.ServiceType == typeof(Container) && Equals(service.ServiceKey, name)))
        {
            throw new ArgumentException($"An encrypted container named '{name}' is already registered.", nameof(name));
        }

        OptionsBuilder<EncryptionContainerOptions> options = Services.AddOptions<EncryptionContainerOptions>(name);
        if (configure is not null)
        {
            options.Configure(configure);
        }

        Services.AddKeyedSingleton<Container>(name, (services, _) =>
        {
            EncryptionContainerOptions containerOptions = services.GetRequiredService<IOptionsMonitor<EncryptionContainerOptions>>().Get(name);
            Container container = services.GetRequiredService<CosmosClient>().GetContainer(databaseId, containerId);
            return container.WithEncryptor(services.GetRequiredService<CosmosEncryptor>(), containerOptions);
        });
        return this;
    }
}
