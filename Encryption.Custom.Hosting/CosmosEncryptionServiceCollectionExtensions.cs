using Encryption.Custom;
using Encryption.Custom.Hosting;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Registers Cosmos DB client-side encryption in a service collection (see <c>docs/hosting.md</c>).</summary>
public static class CosmosEncryptionServiceCollectionExtensions
{
    /// <summary>
    /// Registers client-side encryption with <see cref="CosmosEncryptionOptions"/> bound from
    /// <paramref name="configuration"/> (for example <c>builder.Configuration.GetSection("CosmosEncryption")</c>).
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configuration">The configuration section to bind.</param>
    /// <returns>A builder to choose the key-wrap provider and add encrypted containers.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <inheritdoc cref="AddCosmosEncryption(IServiceCollection, Action{CosmosEncryptionOptions})" path="/remarks"/>
    public static CosmosEncryptionBuilder AddCosmosEncryption(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);
        CosmosEncryptionBuilder builder = AddCore(services);
        services.AddOptions<CosmosEncryptionOptions>().Bind(configuration);
        return builder;
    }

    /// <summary>Registers client-side encryption with <see cref="CosmosEncryptionOptions"/> set by <paramref name="configure"/>.</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configure">Sets the options.</param>
    /// <returns>A builder to choose the key-wrap provider and add encrypted containers.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <remarks>
    /// Registers, as singletons: the <see cref="CosmosDataEncryptionKeyProvider"/> (also as
    /// <see cref="DataEncryptionKeyProvider"/>) and the <see cref="CosmosEncryptor"/> (also as <see cref="Encryptor"/>),
    /// over the key-wrap provider the builder chooses; and a hosted service that, when the host starts and before
    /// other hosted services start, initializes the DEK container and loads
    /// <see cref="CosmosEncryptionOptions.DataEncryptionKeyIds"/>. The options are validated when the host starts. The
    /// <c>Microsoft.Azure.Cosmos.CosmosClient</c> must be registered by the application. Calling this again adds
    /// configuration to the same registrations.
    /// </remarks>
    public static CosmosEncryptionBuilder AddCosmosEncryption(this IServiceCollection services, Action<CosmosEncryptionOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configure);
        CosmosEncryptionBuilder builder = AddCore(services);
        services.AddOptions<CosmosEncryptionOptions>().Configure(configure);
        return builder;
    }

    private static CosmosEncryptionBuilder AddCore(IServiceCollection services)
    {
        // Once only: a second call must not validate (and report failures) twice.
        if (services.Any(static service => service.ImplementationType == typeof(CosmosEncryptionInitializer)))
        {
            return new CosmosEncryptionBuilder(services);
        }

        services.TryAddSingleton<WarmUpLogs>();
        services.AddOptions<CosmosEncryptionOptions>()
            .PostConfigure<IServiceProvider>(static (options, provider) =>
            {
                // Wrapped so that a warm-up failure is logged once (WarmUpLogs).
                if ((options.KeyProvider.LoggerFactory ?? provider.GetService<ILoggerFactory>()) is { } loggerFactory)
                {
                    options.KeyProvider.LoggerFactory = provider.GetRequiredService<WarmUpLogs>().Wrap(loggerFactory);
                }
            })
            .ValidateDataAnnotations()
            .ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<CosmosEncryptionOptions>, CosmosEncryptionOptionsValidator>());

        services.TryAddSingleton(static provider => new CosmosDataEncryptionKeyProvider(
            provider.GetService<EncryptionKeyWrapProvider>() ?? throw new InvalidOperationException(
                "No key-wrap provider is registered for Cosmos encryption: call UseAzureKeyVaultKeyWrapProvider, UseLocalKeyWrapProvider or UseKeyWrapProvider on the builder AddCosmosEncryption returns."),
            provider.GetRequiredService<IOptions<CosmosEncryptionOptions>>().Value.KeyProvider));
        services.TryAddSingleton<DataEncryptionKeyProvider>(static provider => provider.GetRequiredService<CosmosDataEncryptionKeyProvider>());
        services.TryAddSingleton(static provider => new CosmosEncryptor(provider.GetRequiredService<CosmosDataEncryptionKeyProvider>()));
        services.TryAddSingleton<Encryptor>(static provider => provider.GetRequiredService<CosmosEncryptor>());
        services.AddSingleton<IHostedService, CosmosEncryptionInitializer>();
        return new CosmosEncryptionBuilder(services);
    }
}
