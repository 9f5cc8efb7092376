using System.Security.Cryptography;
using Azure.Core;
using Encryption.Custom.Hosting;
using Encryption.Custom.Tests.TestSupport;
using Microsoft.Azure.Cosmos;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Encryption.Custom.Tests.Hosting;

/// <summary>The seams of Encryption.Custom.Hosting without an endpoint: registrations, validation, the health check's edge.</summary>
public sealed class CosmosEncryptionRegistrationTests
{
    private static readonly Dictionary<string, string?> s_valid = new()
    {
        ["CosmosEncryption:DatabaseId"] = "app",
        ["CosmosEncryption:KeyContainerId"] = "keys",
        ["CosmosEncryption:DataEncryptionKeyIds:0"] = "dek1",
        ["CosmosEncryption:KeyProvider:RefreshBeforeExpiry"] = "00:02:00",
    };

    [Fact]
    public void AddCosmosEncryption_RegistersOneProviderAndEncryptor_UnderTheirBaseTypesToo()
    {
        IServiceCollection collection = Build(s_valid);
        using ServiceProvider services = collection.BuildServiceProvider();

        CosmosDataEncryptionKeyProvider provider = services.GetRequiredService<CosmosDataEncryptionKeyProvider>();
        Assert.Same(provider, services.GetRequiredService<DataEncryptionKeyProvider>());
        CosmosEncryptor encryptor = services.GetRequiredService<CosmosEncryptor>();
        Assert.Same(encryptor, services.GetRequiredService<Encryptor>());
        Assert.Same(provider, encryptor.DataEncryptionKeyProvider);
        Assert.IsType<LocalKeyWrapProvider>(provider.EncryptionKeyWrapProvider);
        collection.AddCosmosEncryption(_ => { });
        Assert.Single(collection, service => service.ServiceType == typeof(IHostedService) && service.ImplementationType == typeof(CosmosEncryptionInitializer));
    }

    [Fact]
    public void Options_AreBoundFromConfiguration_AndGetTheHostsLoggerFactory()
    {
        IServiceCollection collection = Build(s_valid);
        var loggerFactory = new CapturingLogger();
        collection.AddSingleton<ILoggerFactory>(loggerFactory);
        using ServiceProvider services = collection.BuildServiceProvider();

        CosmosEncryptionOptions options = services.GetRequiredService<IOptions<CosmosEncryptionOptions>>().Value;

        Assert.Equal("app", options.DatabaseId);
        Assert.Equal("keys", options.KeyContainerId);
        Assert.Equal(["dek1"], options.DataEncryptionKeyIds);
        Assert.True(options.CreateKeyContainerIfNotExists);
        Assert.True(options.FailStartOnWarmUpError);
        Assert.Equal(CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, options.EncryptionAlgorithm);
        Assert.Equal(TimeSpan.FromMinutes(2), options.KeyProvider.RefreshBeforeExpiry);

        // The host's factory, wrapped so that a warm-up failure is logged once (WarmUpLogsTests): entries reach it.
        options.KeyProvider.LoggerFactory!.CreateLogger("test").LogInformation("through the host's factory");
        Assert.Contains(loggerFactory.Entries, e => e.Message == "through the host's factory");
    }

    [Fact]
    public void Validation_NamesEveryProblem_IncludingTheKeyProvidersOwnRules()
    {
        var options = new CosmosEncryptionOptions { EncryptionAlgorithm = "AES-typo" };
        options.DataEncryptionKeyIds.Add(" ");
        options.KeyProvider.RewrapMaxAttempts = 0;

        ValidateOptionsResult result = new CosmosEncryptionOptionsValidator().Validate(null, options);

        Assert.True(result.Failed);
        Assert.Contains("DataEncryptionKeyIds contains an empty id", result.FailureMessage, StringComparison.Ordinal);
        Assert.Contains("EncryptionAlgorithm 'AES-typo' is not supported", result.FailureMessage, StringComparison.Ordinal);
        Assert.Contains("KeyProvider: RewrapMaxAttempts must be at least 1", result.FailureMessage, StringComparison.Ordinal);
        Assert.True(new CosmosEncryptionOptionsValidator().Validate(null, new CosmosEncryptionOptions()).Succeeded);
    }

    [Fact]
    public void ASecondKeyWrapProvider_IsRefusedAtRegistration()
    {
        CosmosEncryptionBuilder builder = new ServiceCollection().AddCosmosEncryption(_ => { }).UseLocalKeyWrapProvider((_, _) => { });

        InvalidOperationException failure = Assert.Throws<InvalidOperationException>(() => builder.UseAzureKeyVaultKeyWrapProvider());

        Assert.Contains("already registered", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void NoKeyWrapProvider_FailsOnResolveNamingTheBuilderMethods()
    {
        var collection = new ServiceCollection();
        collection.AddCosmosEncryption(_ => { });
        using ServiceProvider services = collection.BuildServiceProvider();

        InvalidOperationException failure = Assert.Throws<InvalidOperationException>(() => services.GetRequiredService<CosmosDataEncryptionKeyProvider>());

        Assert.Contains("UseAzureKeyVaultKeyWrapProvider", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AzureKeyVault_WithoutACredential_UsesTheRegisteredOne_OrSaysWhatIsMissing()
    {
        var without = new ServiceCollection();
        without.AddCosmosEncryption(_ => { }).UseAzureKeyVaultKeyWrapProvider();
        using (ServiceProvider services = without.BuildServiceProvider())
        {
            InvalidOperationException failure = Assert.Throws<InvalidOperationException>(() => services.GetRequiredService<EncryptionKeyWrapProvider>());
            Assert.Contains(nameof(TokenCredential), failure.Message, StringComparison.Ordinal);
        }

        var with = new ServiceCollection();
        with.AddSingleton<TokenCredential>(new StaticCredential());
        with.AddCosmosEncryption(_ => { }).UseAzureKeyVaultKeyWrapProvider(configure: options => options.Retry.MaxRetries = 1);
        using ServiceProvider resolved = with.BuildServiceProvider();
        Assert.IsType<AzureKeyVault.AzureKeyVaultKeyWrapProvider>(resolved.GetRequiredService<EncryptionKeyWrapProvider>());
    }

    [Fact]
    public void EncryptedContainer_IsAKeyedSingletonWrappingTheRegisteredClientsContainer_WithItsNamedOptions()
    {
        IServiceCollection collection = Build(s_valid);
        using var client = new CosmosClient("AccountEndpoint=https://localhost:8081/;AccountKey=" + Convert.ToBase64String(new byte[64]));
        collection.AddSingleton(client);
        new CosmosEncryptionBuilder(collection).AddEncryptedContainer("orders", "app", "orders", options => options.PatchMaxAttempts = 7);
        using ServiceProvider services = collection.BuildServiceProvider();

        Container orders = services.GetRequiredKeyedService<Container>("orders");

        Assert.Same(orders, services.GetRequiredKeyedService<Container>("orders"));
        Assert.Equal("orders", orders.Id);
        Assert.Equal("app", orders.Database.Id);
        Assert.Throws<ArgumentException>(() => orders.WithEncryptor(services.GetRequiredService<Encryptor>()));
        Assert.Equal(7, services.GetRequiredService<IOptionsMonitor<EncryptionContainerOptions>>().Get("orders").PatchMaxAttempts);
        Assert.Throws<ArgumentException>(() => new CosmosEncryptionBuilder(collection).AddEncryptedContainer("orders", "app", "other"));
    }

    [Fact]
    public async Task HealthCheck_WithNoKeysConfigured_IsDegradedNamingTheOption()
    {
        var collection = new ServiceCollection();
        collection.AddCosmosEncryption(options => { options.DatabaseId = "app"; options.KeyContainerId = "keys"; })
            .UseLocalKeyWrapProvider((_, _) => { });
        collection.AddLogging();
        collection.AddHealthChecks().AddCosmosEncryptionKeys();
        using ServiceProvider services = collection.BuildServiceProvider();

        HealthReport report = await services.GetRequiredService<HealthCheckService>().CheckHealthAsync(TestContext.Current.CancellationToken);

        // A check of nothing is not "healthy": a misspelt configuration key leaves the list empty.
        Assert.Equal(HealthStatus.Degraded, report.Status);
        Assert.Contains("No data encryption key is configured", report.Entries[CosmosEncryptionHealthChecksBuilderExtensions.DefaultName].Description, StringComparison.Ordinal);
        Assert.Contains("CosmosEncryptionOptions.DataEncryptionKeyIds", report.Entries[CosmosEncryptionHealthChecksBuilderExtensions.DefaultName].Description, StringComparison.Ordinal);
    }

    private static IServiceCollection Build(Dictionary<string, string?> settings)
    {
        IConfiguration configuration = new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
        var collection = new ServiceCollection();
        collection.AddCosmosEncryption(configuration.GetSection("CosmosEncryption"))
            .UseLocalKeyWrapProvider((_, keys) => keys.AddAesKey("kek", RandomNumberGenerator.GetBytes(32)));
        return collection;
    }

    private sealed class StaticCredential : TokenCredential
    {
        public override AccessToken GetToken(TokenRequestContext requestContext, CancellationToken cancellationToken) => new("token", DateTimeOffset.MaxValue);

        public override ValueTask<AccessToken> GetTokenAsync(TokenRequestContext requestContext, CancellationToken cancellationToken) => new(GetToken(requestContext, cancellationToken));
    }
}
