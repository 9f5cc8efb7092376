using System.Security.Cryptography;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Newtonsoft.Json.Linq;

namespace Encryption.Custom.Emulator.Tests.Hosting;

/// <summary>
/// Encryption.Custom.Hosting in a real generic host (Host.CreateApplicationBuilder) against the endpoint: configuration
/// binding, validation at start, warm-up, the health check, a keyed encrypted container, and what gets logged.
/// </summary>
public sealed class HostingTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>, IAsyncLifetime
{
    private const string Dek = "orders-dek";
    private const string Secret = "4111-1111-1111-1111";

    // The class shares one database: each test provisions its own DEK container with its own KEK.
    private readonly string _keyContainerId = "keys-" + Guid.NewGuid().ToString("N");
    private readonly byte[] _kek = RandomNumberGenerator.GetBytes(32);
    private readonly CapturedLogs _logs = new();
    private Container? _orders;

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    public async ValueTask InitializeAsync()
    {
        // Provisioning, as a deployment step would do it: the DEK container, one DEK, and the data container.
        using var local = new LocalKeyWrapProvider();
        local.AddAesKey("kek", _kek);
        using var keys = new CosmosDataEncryptionKeyProvider(local);
        await keys.InitializeAsync(fixture.Database, _keyContainerId, Ct);
        await keys.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(
            Dek, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, LocalKeyWrapProvider.CreateMetadata("kek", KeyWrapAlgorithm.AesKeyWrap), cancellationToken: Ct);
        _orders = await fixture.CreateContainerAsync("/pk", Ct);
    }

    public ValueTask DisposeAsync()
    {
        CryptographicOperations.ZeroMemory(_kek);
        return ValueTask.CompletedTask;
    }

    [Fact]
    public async Task Host_FromConfiguration_WarmsTheKey_AndTheKeyedContainerRoundTrips()
    {
        using IHost host = BuildHost(new()
        {
            ["CosmosEncryption:KeyProvider:DataEncryptionKeyPropertiesTimeToLive"] = "00:05:00",
        });

        await host.StartAsync(Ct);

        CosmosEncryptionOptions options = host.Services.GetRequiredService<IOptions<CosmosEncryptionOptions>>().Value;
        Assert.Equal(fixture.Database.Id, options.DatabaseId);
        Assert.Equal([Dek], options.DataEncryptionKeyIds);
        Assert.Equal(TimeSpan.FromMinutes(5), options.KeyProvider.DataEncryptionKeyPropertiesTimeToLive);
        Assert.True(_logs.Has("DataEncryptionKeyLoaded", $"'{Dek}'"), "the DEK is loaded at start");
        Assert.True(_logs.Has("WarmUpFinished", "loaded 1 of 1"));

        Container orders = host.Services.GetRequiredKeyedService<Container>("orders");
        var order = new JObject { ["id"] = Guid.NewGuid().ToString("N"), ["pk"] = "p1", ["card"] = Secret };
        var encrypt = new EncryptionItemRequestOptions { EncryptionOptions = new() { DataEncryptionKeyId = Dek, PathsToEncrypt = ["/card"] } };
        await orders.CreateItemAsync(order, new PartitionKey("p1"), encrypt, Ct);

        JObject read = (await orders.ReadItemAsync<JObject>((string)order["id"]!, new PartitionKey("p1"), cancellationToken: Ct)).Resource;
        JObject stored = (await _orders!.ReadItemAsync<JObject>((string)order["id"]!, new PartitionKey("p1"), cancellationToken: Ct)).Resource;
        Assert.Equal(Secret, (string?)read["card"]);
        Assert.NotEqual(Secret, (string?)stored["card"]);
        Assert.Same(orders, host.Services.GetRequiredKeyedService<Container>("orders"));

        HealthReport health = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync(Ct);
        Assert.Equal(HealthStatus.Healthy, health.Status);

        await host.StopAsync(Ct);
        AssertNoSecretsLogged();
    }

    [Fact]
    public async Task Start_WithoutDatabaseId_OrWithANegativeRetryInterval_FailsNamingTheOptions()
    {
        using IHost host = BuildHost(new()
        {
            ["CosmosEncryption:DatabaseId"] = "",
            ["CosmosEncryption:KeyProvider:RefreshRetryInterval"] = "-00:00:01",
        });

        OptionsValidationException failure = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync(Ct));

        Assert.Contains(nameof(CosmosEncryptionOptions.DatabaseId), failure.Message, StringComparison.Ordinal);
        Assert.Contains(nameof(CosmosDataEncryptionKeyProviderOptions.RefreshRetryInterval), failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Start_WhenAKeyCannotBeUnwrapped_FailsNamingTheKey()
    {
        using IHost host = BuildHost(new() { ["CosmosEncryption:DataEncryptionKeyIds:1"] = "missing-dek" });

        InvalidOperationException failure = await Assert.ThrowsAsync<InvalidOperationException>(() => host.StartAsync(Ct));

        Assert.Contains("'missing-dek' (KeyUnavailable)", failure.Message, StringComparison.Ordinal);
        Assert.IsType<EncryptionException>(failure.InnerException);
    }

    // A warm-up failure is one log entry with one stack, whether the start fails (the host logs the exception the
    // start throws) or goes on (FailStartOnWarmUpError = false); it was three entries with two stacks.
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Start_WhenAKeyCannotBeLoaded_LogsTheFailureOnce(bool failStart)
    {
        using IHost host = BuildHost(new() { ["CosmosEncryption:DataEncryptionKeyIds:1"] = "missing-dek", ["CosmosEncryption:FailStartOnWarmUpError"] = failStart ? "true" : "false" });

        if (failStart)
        {
            await Assert.ThrowsAsync<InvalidOperationException>(() => host.StartAsync(Ct));
        }
        else
        {
            await host.StartAsync(Ct);
            Assert.True(_logs.Has("WarmUpFinished", "loaded 1 of 2"));
            await host.StopAsync(Ct);
        }

        CapturedLogs.Entry entry = AssertLoggedOnce("'missing-dek'");
        Assert.Equal(failStart ? "HostedServiceStartupFaulted" : "WarmUpFailed", entry.EventName);
        Assert.Contains("was not found in the data encryption key container", entry.Exception, StringComparison.Ordinal);
        Assert.False(_logs.Has("DataEncryptionKeyLoadFailed", "'missing-dek'"));
    }

    // Exactly one entry names the key (in its message or its exception), and it carries the cause's stack.
    private CapturedLogs.Entry AssertLoggedOnce(string key)
    {
        CapturedLogs.Entry[] naming = [.. _logs.Entries.Where(e => e.Message.Contains(key, StringComparison.Ordinal) || e.Exception?.Contains(key, StringComparison.Ordinal) == true)];
        string all = string.Join("\n---\n", naming.Select(e => $"{e.Category} {e.Level} {e.EventName}: {e.Message}\n{e.Exception}"));
        Assert.True(naming.Length == 1, $"{naming.Length} entries name {key}:\n{all}");
        Assert.NotNull(naming[0].Exception);
        Assert.Equal(LogLevel.Error, naming[0].Level);
        return naming[0];
    }

    [Fact]
    public async Task HealthCheck_KeyWhoseKekIsMissing_IsUnhealthy_NamingTheKeyAndTheErrorKind()
    {
        // The host's key-wrap provider lacks the key-encryption key that wrapped the DEK.
        using IHost host = BuildHost(new() { ["CosmosEncryption:FailStartOnWarmUpError"] = "false" }, kekName: "another-kek");
        await host.StartAsync(Ct);

        HealthReport health = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync(Ct);

        HealthReportEntry entry = health.Entries[CosmosEncryptionHealthChecksBuilderExtensions.DefaultName];
        Assert.Equal(HealthStatus.Unhealthy, entry.Status);
        Assert.Contains($"'{Dek}' (KeyUnavailable)", entry.Description, StringComparison.Ordinal);
        Assert.True(_logs.Has("WarmUpFailed", $"'{Dek}'"));
        await host.StopAsync(Ct);
        AssertNoSecretsLogged();
    }

    [Fact]
    public async Task HealthCheck_KekUnavailableAfterWarmUp_IsDegraded_WhileTheCachedKeyServes()
    {
        var switchable = new SwitchableKeyWrapProvider(_kek);
        using IHost host = BuildHost([], provider: switchable);
        await host.StartAsync(Ct);
        HealthCheckService checks = host.Services.GetRequiredService<HealthCheckService>();
        Assert.Equal(HealthStatus.Healthy, (await checks.CheckHealthAsync(Ct)).Status);

        switchable.Fail = true;
        HealthReport health = await checks.CheckHealthAsync(Ct);

        HealthReportEntry entry = health.Entries[CosmosEncryptionHealthChecksBuilderExtensions.DefaultName];
        Assert.Equal(HealthStatus.Degraded, entry.Status);
        Assert.Contains($"'{Dek}' (KeyUnavailable)", entry.Description, StringComparison.Ordinal);
        await host.StopAsync(Ct);
    }

    [Fact]
    public async Task HealthCheck_NoKeyConfigured_IsDegradedNamingTheOption()
    {
        // The configuration key misspelt (singular): the list stays empty, and "healthy" would hide it.
        using IHost host = BuildHost(new() { ["CosmosEncryption:DataEncryptionKeyId"] = Dek }, keyIds: false);
        await host.StartAsync(Ct);

        HealthReport health = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync(Ct);

        HealthReportEntry entry = health.Entries[CosmosEncryptionHealthChecksBuilderExtensions.DefaultName];
        Assert.Equal(HealthStatus.Degraded, entry.Status);
        Assert.Contains("CosmosEncryptionOptions.DataEncryptionKeyIds", entry.Description, StringComparison.Ordinal);
        await host.StopAsync(Ct);
    }

    private IHost BuildHost(Dictionary<string, string?> settings, string kekName = "kek", EncryptionKeyWrapProvider? provider = null, bool keyIds = true)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        var defaults = new Dictionary<string, string?>
        {
            ["CosmosEncryption:DatabaseId"] = fixture.Database.Id,
            ["CosmosEncryption:KeyContainerId"] = _keyContainerId,
        };
        if (keyIds)
        {
            defaults["CosmosEncryption:DataEncryptionKeyIds:0"] = Dek;
        }

        builder.Configuration.AddInMemoryCollection(defaults);
        builder.Configuration.AddInMemoryCollection(settings);
        builder.Logging.AddProvider(_logs).SetMinimumLevel(LogLevel.Debug);

        // The test run's shared client: registered as an instance, so the host does not dispose it.
        builder.Services.AddSingleton(fixture.Client);
        CosmosEncryptionBuilder encryption = builder.Services.AddCosmosEncryption(builder.Configuration.GetSection("CosmosEncryption"));
        if (provider is null)
        {
            encryption.UseLocalKeyWrapProvider((_, keys) => keys.AddAesKey(kekName, _kek));
        }
        else
        {
            encryption.UseKeyWrapProvider(_ => provider);
        }

        encryption.AddEncryptedContainer("orders", fixture.Database.Id, _orders!.Id, options => options.PatchMaxAttempts = 2);
        builder.Services.AddHealthChecks().AddCosmosEncryptionKeys();
        return builder.Build();
    }

    private void AssertNoSecretsLogged()
    {
        string text = _logs.AllText;
        Assert.NotEmpty(text);
        Assert.DoesNotContain(Secret, text, StringComparison.Ordinal);
        Assert.DoesNotContain(Convert.ToBase64String(_kek), text, StringComparison.Ordinal);
        Assert.DoesNotContain(Convert.ToHexString(_kek), text, StringComparison.OrdinalIgnoreCase);
    }

    /// <summary>A local key-wrap provider whose unwraps can be made to fail, as a Key Vault outage would.</summary>
    private sealed class SwitchableKeyWrapProvider : EncryptionKeyWrapProvider, IDisposable
    {
        private readonly LocalKeyWrapProvider _inner = new();

        public SwitchableKeyWrapProvider(byte[] kek) => _inner.AddAesKey("kek", kek);

        public volatile bool Fail;

        public override Task<EncryptionKeyWrapResult> WrapKeyAsync(ReadOnlyMemory<byte> key, EncryptionKeyWrapMetadata metadata, CancellationToken cancellationToken = default) =>
            _inner.WrapKeyAsync(key, metadata, cancellationToken);

        public override Task<EncryptionKeyUnwrapResult> UnwrapKeyAsync(ReadOnlyMemory<byte> wrappedKey, EncryptionKeyWrapMetadata metadata, CancellationToken cancellationToken = default) =>
            Fail
                ? throw new EncryptionException(EncryptionErrorKind.KeyUnavailable, "The key store is unreachable (simulated).")
                : _inner.UnwrapKeyAsync(wrappedKey, metadata, cancellationToken);

        public void Dispose() => _inner.Dispose();
    }
}
