using System.Security.Cryptography;
using Encryption.Custom.Cosmos;
using Encryption.Custom.Json;
using Encryption.Custom.Processing;
using Encryption.Custom.Keys;
using Encryption.Custom.Keys.Cosmos;
using Encryption.Custom.Keys.Local;

namespace Encryption.Custom.Emulator.Tests.Encryption;

/// <summary>
/// Class fixture for the encryption tests: a database of its own, a DEK container with two DEKs wrapped by a
/// local AES key-encryption key, the encryptor over them, and containers wrapped with it.
/// </summary>
public sealed class EncryptionFixture(CosmosEndpointFixture endpointFixture) : IAsyncLifetime
{
    public const string Dek1 = "dek1";
    public const string Dek2 = "dek2";
    public const string Mde = CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized;

    private readonly CosmosDatabaseFixture _database = new(endpointFixture);
    private readonly SemaphoreSlim _sharedLock = new(1, 1);
    private LocalKeyWrapProvider? _keyWrapProvider;
    private CosmosDataEncryptionKeyProvider? _keyProvider;
    private (Container Raw, Container Encrypted)? _shared;

    public CosmosEndpoint Endpoint => endpointFixture.Endpoint;

    public CosmosClient Client => endpointFixture.Client;

    public Database Database => _database.Database;

    public CosmosDataEncryptionKeyProvider KeyProvider => _keyProvider ?? throw new InvalidOperationException("Not initialized.");

    public Encryptor Encryptor { get; private set; } = null!;

    public async ValueTask InitializeAsync()
    {
        await _database.InitializeAsync();
        _keyWrapProvider = new LocalKeyWrapProvider();
        _keyWrapProvider.AddAesKey("kek1", RandomNumberGenerator.GetBytes(32));
        _keyProvider = new CosmosDataEncryptionKeyProvider(_keyWrapProvider);
        await _keyProvider.InitializeAsync(Database, "keys");
        EncryptionKeyWrapMetadata kek = LocalKeyWrapProvider.CreateMetadata("kek1", KeyWrapAlgorithm.AesKeyWrap);
        await _keyProvider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(Dek1, Mde, kek);
        await _keyProvider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(Dek2, Mde, kek);
        Encryptor = new CosmosEncryptor(_keyProvider);
    }

    /// <summary>
    /// Stores a DEK whose root key is the bytes 0x01..0x20 (the known-answer key of the wire-format reference),
    /// wrapped by the fixture's key-encryption key, under <paramref name="id"/>.
    /// </summary>
    public async Task AddKnownAnswerDekAsync(string id, CancellationToken cancellationToken)
    {
        byte[] rootKey = [.. Enumerable.Range(1, 32).Select(i => (byte)i)];
        EncryptionKeyWrapResult wrapped = await _keyWrapProvider!.WrapKeyAsync(rootKey, LocalKeyWrapProvider.CreateMetadata("kek1", KeyWrapAlgorithm.AesKeyWrap), cancellationToken);
        string json = System.Text.Json.JsonSerializer.Serialize(new Dictionary<string, object>
        {
            ["id"] = id,
            ["encryptionAlgorithm"] = Mde,
            ["wrappedDataEncryptionKey"] = Convert.ToBase64String(wrapped.WrappedDataEncryptionKey.Span),
            ["keyWrapMetadata"] = new Dictionary<string, string>
            {
                ["type"] = wrapped.EncryptionKeyWrapMetadata.Type,
                ["name"] = wrapped.EncryptionKeyWrapMetadata.Name!,
                ["value"] = wrapped.EncryptionKeyWrapMetadata.Value,
                ["algorithm"] = wrapped.EncryptionKeyWrapMetadata.Algorithm!,
            },
            ["createTime"] = DateTimeOffset.UtcNow.ToUnixTimeSeconds(),
        });
        using var body = new MemoryStream(System.Text.Encoding.UTF8.GetBytes(json));
        using ResponseMessage response = await KeyProvider.Container.UpsertItemStreamAsync(body, new PartitionKey(id), cancellationToken: cancellationToken);
        response.EnsureSuccessStatusCode();
    }

    /// <summary>A new container (partition key <paramref name="partitionKeyPath"/>) and its encryption wrapper.</summary>
    public async Task<(Container Raw, Container Encrypted)> CreateContainerAsync(
        string partitionKeyPath = CosmosDatabaseFixture.DefaultPartitionKeyPath,
        EncryptionContainerOptions? options = null,
        CancellationToken cancellationToken = default)
    {
        Container raw = await _database.CreateContainerAsync(partitionKeyPath, cancellationToken);
        return (raw, raw.WithEncryptor(Encryptor, options));
    }

    /// <summary>One container (partition key <c>/pk</c>) shared by a test class; use unique ids in it.</summary>
    public async Task<(Container Raw, Container Encrypted)> GetSharedContainerAsync(CancellationToken cancellationToken = default)
    {
        await _sharedLock.WaitAsync(cancellationToken);
        try
        {
            return _shared ??= await CreateContainerAsync(cancellationToken: cancellationToken);
        }
        finally
        {
            _sharedLock.Release();
        }
    }

    /// <summary>Request options that encrypt <paramref name="paths"/> with <paramref name="dekId"/>.</summary>
    public static EncryptionItemRequestOptions Encrypt(string dekId, params string[] paths) =>
        new() { EncryptionOptions = Options(dekId, paths) };

    public static EncryptionOptions Options(string dekId, params string[] paths) =>
        new() { DataEncryptionKeyId = dekId, PathsToEncrypt = paths };

    public async ValueTask DisposeAsync()
    {
        _sharedLock.Dispose();
        _keyProvider?.Dispose();
        _keyWrapProvider?.Dispose();
        await _database.DisposeAsync();
    }
}
