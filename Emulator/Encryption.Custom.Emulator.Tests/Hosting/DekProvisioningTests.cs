using System.Security.Cryptography;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Encryption.Custom.Emulator.Tests.Hosting;

/// <summary>
/// <c>CreateDataEncryptionKeyIfNotExists</c> in a real generic host against the endpoint: a missing DEK is created at
/// start (and warmed), an existing one is left as it is, two instances starting at once create it once, nothing is
/// created without the call, a DEK that cannot be created fails the start naming it and its KEK; and an application
/// that initialized the provider itself with the same container no longer makes the start fail.
/// </summary>
public sealed class DekProvisioningTests(CosmosDatabaseFixture fixture) : IClassFixture<CosmosDatabaseFixture>, IDisposable
{
    private const string Dek = "provisioned-dek";
    private const string Algorithm = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    private readonly string _keyContainerId = "keys-" + Guid.NewGuid().ToString("N");
    private readonly byte[] _kek = RandomNumberGenerator.GetBytes(32);
    private readonly CapturedLogs _logs = new();

    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    private static EncryptionKeyWrapMetadata Kek(string name = "kek") => LocalKeyWrapProvider.CreateMetadata(name, KeyWrapAlgorithm.AesKeyWrap);

    [Fact]
    public async Task Start_CreatesTheMissingDek_WarmsIt_AndASecondStartLeavesItAsItIs()
    {
        string? etag;
        using (IHost first = BuildHost(provision: true))
        {
            await first.StartAsync(Ct);
            byte[] cipherText = await first.Services.GetRequiredService<Encryptor>().EncryptAsync("4111"u8.ToArray(), Dek, Algorithm, Ct);
            Assert.Equal("4111"u8.ToArray(), await first.Services.GetRequiredService<Encryptor>().DecryptAsync(cipherText, Dek, Algorithm, Ct));
            etag = await DekETagAsync();
            Assert.NotNull(etag);
            await first.StopAsync(Ct);
        }

        Assert.True(_logs.Has("DataEncryptionKeyCreated", $"'{Dek}', wrapped by the key-encryption key 'kek'"));
        Assert.True(_logs.Has("WarmUpFinished", "loaded 1 of 1"));

        using IHost second = BuildHost(provision: true);
        await second.StartAsync(Ct);
        await second.StopAsync(Ct);

        Assert.Single(_logs.Entries, e => e.EventName == "DataEncryptionKeyCreated");
        Assert.True(_logs.Has("DataEncryptionKeyExists", $"'{Dek}'"));
        Assert.Equal(etag, await DekETagAsync());
        Assert.DoesNotContain(Convert.ToBase64String(_kek), _logs.AllText, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Start_TwoInstancesAtOnce_CreateTheDekOnce_AndBothStart()
    {
        // The DEK container exists before, as it would after the first deployment; the DEK does not.
        using (var local = new LocalKeyWrapProvider())
        using (var keys = new CosmosDataEncryptionKeyProvider(local))
        {
            await keys.InitializeAsync(fixture.Database, _keyContainerId, Ct);
        }

        using IHost one = BuildHost(provision: true);
        using IHost two = BuildHost(provision: true);
        await Task.WhenAll(one.StartAsync(Ct), two.StartAsync(Ct));

        byte[] cipherText = await one.Services.GetRequiredService<Encryptor>().EncryptAsync("4111"u8.ToArray(), Dek, Algorithm, Ct);
        Assert.Equal("4111"u8.ToArray(), await two.Services.GetRequiredService<Encryptor>().DecryptAsync(cipherText, Dek, Algorithm, Ct));
        Assert.Equal(2, _logs.Entries.Count(e => e.EventName is "DataEncryptionKeyCreated" or "DataEncryptionKeyExists"));
        await Task.WhenAll(one.StopAsync(Ct), two.StopAsync(Ct));
    }

    [Fact]
    public async Task Start_WithoutTheCall_CreatesNothing()
    {
        using IHost host = BuildHost(provision: false, settings: new() { ["CosmosEncryption:FailStartOnWarmUpError"] = "false" });

        await host.StartAsync(Ct);

        Assert.True(_logs.Has("WarmUpFailed", $"'{Dek}'"));
        Assert.Null(await DekETagAsync());
        await host.StopAsync(Ct);
    }

    [Fact]
    public async Task Start_DekTheProviderCannotWrap_FailsNamingTheDekAndTheKek_AndStoresNothing()
    {
        using IHost host = BuildHost(provision: true, kek: Kek("kek-not-registered"));

        InvalidOperationException failure = await Assert.ThrowsAsync<InvalidOperationException>(() => host.StartAsync(Ct));

        Assert.Contains($"could not create the data encryption key '{Dek}' wrapped by the key-encryption key 'kek-not-registered'", failure.Message, StringComparison.Ordinal);
        Assert.Null(await DekETagAsync());
    }

    [Fact]
    public async Task Start_ProviderInitializedByTheApplicationWithTheSameContainer_StartsInsteadOfAlreadyInitialized()
    {
        using IHost host = BuildHost(provision: true);
        CosmosDataEncryptionKeyProvider provider = host.Services.GetRequiredService<CosmosDataEncryptionKeyProvider>();
        await provider.InitializeAsync(fixture.Database, _keyContainerId, Ct);

        await host.StartAsync(Ct);

        Assert.True(_logs.Has("DataEncryptionKeyCreated", $"'{Dek}'"));
        Assert.Equal(_keyContainerId, provider.Container.Id);
        await host.StopAsync(Ct);
    }

    [Fact]
    public async Task Start_ProviderInitializedByTheApplicationWithAnotherContainer_FailsNamingBoth()
    {
        using IHost host = BuildHost(provision: false);
        string other = "other-" + Guid.NewGuid().ToString("N");
        await host.Services.GetRequiredService<CosmosDataEncryptionKeyProvider>().InitializeAsync(fixture.Database, other, Ct);

        InvalidOperationException failure = await Assert.ThrowsAsync<InvalidOperationException>(() => host.StartAsync(Ct));

        Assert.Contains($"initialized with the container '{other}'", failure.Message, StringComparison.Ordinal);
        Assert.Contains($"names '{_keyContainerId}'", failure.Message, StringComparison.Ordinal);
    }

    public void Dispose() => CryptographicOperations.ZeroMemory(_kek);

    private async Task<string?> DekETagAsync()
    {
        using ResponseMessage response = await fixture.Database.GetContainer(_keyContainerId).ReadItemStreamAsync(Dek, new PartitionKey(Dek), cancellationToken: Ct);
        return response.IsSuccessStatusCode ? response.Headers.ETag : null;
    }

    private IHost BuildHost(bool provision, EncryptionKeyWrapMetadata? kek = null, Dictionary<string, string?>? settings = null)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["CosmosEncryption:DatabaseId"] = fixture.Database.Id,
            ["CosmosEncryption:KeyContainerId"] = _keyContainerId,
            ["CosmosEncryption:DataEncryptionKeyIds:0"] = Dek,
        });
        builder.Configuration.AddInMemoryCollection(settings ?? []);
        builder.Logging.AddProvider(_logs).SetMinimumLevel(LogLevel.Debug);
        builder.Services.AddSingleton(fixture.Client);
        CosmosEncryptionBuilder encryption = builder.Services.AddCosmosEncryption(builder.Configuration.GetSection("CosmosEncryption"))
            .UseLocalKeyWrapProvider((_, keys) => keys.AddAesKey("kek", _kek));
        if (provision)
        {
            encryption.CreateDataEncryptionKeyIfNotExists(Dek, kek ?? Kek());
        }

        return builder.Build();
    }
}
