using System.Security.Cryptography;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;

namespace Encryption.Custom.Emulator.Tests.Hosting;

/// <summary>
/// A missing DEK database or container, in a real generic host against the endpoint: the start fails, and the health
/// check reports, naming the resource and the option that names it (docs/hosting.md "Health"), not a bare 404.
/// </summary>
public sealed class MissingResourceTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>
{
    private const string Dek = "orders-dek";

    private readonly byte[] _kek = RandomNumberGenerator.GetBytes(32);

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Start_DatabaseMissing_FailsNamingTheDatabaseAndItsOption()
    {
        string database = "missing-db-" + Guid.NewGuid().ToString("N");
        using IHost host = BuildHost(database, "keys");

        InvalidOperationException failure = await Assert.ThrowsAsync<InvalidOperationException>(() => host.StartAsync(Ct));

        Assert.Contains($"the database '{database}' (CosmosEncryptionOptions.DatabaseId) does not exist", failure.Message, StringComparison.Ordinal);
        Assert.Equal(System.Net.HttpStatusCode.NotFound, Assert.IsType<CosmosException>(failure.InnerException).StatusCode);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Start_KeyContainerMissingAndNotToBeCreated_FailsNamingTheContainerAndTheOptions(bool databaseMissingToo)
    {
        string database = databaseMissingToo ? "missing-db-" + Guid.NewGuid().ToString("N") : fixture.Database.Id;
        string container = "missing-keys-" + Guid.NewGuid().ToString("N");
        using IHost host = BuildHost(database, container, new() { ["CosmosEncryption:CreateKeyContainerIfNotExists"] = "false" });

        InvalidOperationException failure = await Assert.ThrowsAsync<InvalidOperationException>(() => host.StartAsync(Ct));

        string expected = databaseMissingToo
            ? $"the database '{database}' (CosmosEncryptionOptions.DatabaseId) does not exist"
            : $"the DEK container '{container}' (CosmosEncryptionOptions.KeyContainerId) does not exist in the database '{database}'";
        Assert.Contains(expected, failure.Message, StringComparison.Ordinal);
        Assert.Contains("CosmosEncryptionOptions.CreateKeyContainerIfNotExists", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task HealthCheck_KeyContainerDeletedAfterTheStart_NamesTheContainerAndItsOption()
    {
        string container = "keys-" + Guid.NewGuid().ToString("N");
        using (var local = new LocalKeyWrapProvider())
        {
            local.AddAesKey("kek", _kek);
            using var keys = new CosmosDataEncryptionKeyProvider(local);
            await keys.InitializeAsync(fixture.Database, container, Ct);
            await keys.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(
                Dek, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, LocalKeyWrapProvider.CreateMetadata("kek", KeyWrapAlgorithm.AesKeyWrap), cancellationToken: Ct);
        }

        using IHost host = BuildHost(fixture.Database.Id, container);
        await host.StartAsync(Ct);
        HealthCheckService health = host.Services.GetRequiredService<HealthCheckService>();
        Assert.Equal(HealthStatus.Healthy, (await health.CheckHealthAsync(Ct)).Status);

        await fixture.Database.GetContainer(container).DeleteContainerAsync(cancellationToken: Ct);
        HealthReportEntry entry = (await health.CheckHealthAsync(Ct)).Entries[CosmosEncryptionHealthChecksBuilderExtensions.DefaultName];

        // The cached key still encrypts, but cannot be renewed: degraded, and the report says why.
        Assert.Equal(HealthStatus.Degraded, entry.Status);
        Assert.Contains($"'{Dek}'", entry.Description, StringComparison.Ordinal);
        Assert.Contains($"the DEK container '{container}' (CosmosEncryptionOptions.KeyContainerId) does not exist in the database '{fixture.Database.Id}'", entry.Description, StringComparison.Ordinal);
        await host.StopAsync(Ct);
    }

    private IHost BuildHost(string databaseId, string keyContainerId, Dictionary<string, string?>? settings = null)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["CosmosEncryption:DatabaseId"] = databaseId,
            ["CosmosEncryption:KeyContainerId"] = keyContainerId,
            ["CosmosEncryption:DataEncryptionKeyIds:0"] = Dek,
        });
        builder.Configuration.AddInMemoryCollection(settings ?? []);

        // The test run's shared client: registered as an instance, so the host does not dispose it.
        builder.Services.AddSingleton(fixture.Client);
        builder.Services.AddCosmosEncryption(builder.Configuration.GetSection("CosmosEncryption"))
            .UseLocalKeyWrapProvider((_, keys) => keys.AddAesKey("kek", _kek));
        builder.Services.AddHealthChecks().AddCosmosEncryptionKeys();
        return builder.Build();
    }
}
