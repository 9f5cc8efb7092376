using System.Security.Cryptography;
using System.Text;
using System.Text.Json;

namespace Encryption.Custom.Emulator.Tests.Tool;

/// <summary>
/// Class fixture for the tool's endpoint tests: a database of its own with a DEK container ("keys") holding three
/// DEKs wrapped by one AES key-encryption key, which is also written to a JSON Web Key file for the tool's
/// <c>--kek-file</c>; the library's encryptor over the same keys seeds and reads documents.
/// </summary>
public sealed class ToolFixture(CosmosEndpointFixture endpointFixture) : IAsyncLifetime
{
    public const string Dek1 = "dek1";
    public const string Dek2 = "dek2";

    /// <summary>A DEK the migrations do not accept: documents under it are reported.</summary>
    public const string Dek3 = "dek3";

    public const string DekContainer = "keys";
    public const string KekName = "kek1";

    private readonly CosmosDatabaseFixture _database = new(endpointFixture);
    private readonly string _folder = Directory.CreateTempSubdirectory("ectool-").FullName;
    private LocalKeyWrapProvider? _keyWrapProvider;
    private CosmosDataEncryptionKeyProvider? _keyProvider;

    public CosmosEndpoint Endpoint => endpointFixture.Endpoint;

    public Database Database => _database.Database;

    public Encryptor Encryptor { get; private set; } = null!;

    /// <summary>The key-encryption key as a JWK file (<c>"kty":"oct"</c>).</summary>
    public string KekFile => Path.Combine(_folder, "kek.jwk");

    public async ValueTask InitializeAsync()
    {
        await _database.InitializeAsync();
        byte[] kek = RandomNumberGenerator.GetBytes(32);
        string jwk = JsonSerializer.Serialize(new Dictionary<string, string> { ["kty"] = "oct", ["k"] = Base64Url(kek) });
        await File.WriteAllTextAsync(KekFile, jwk);
        _keyWrapProvider = new LocalKeyWrapProvider();
        _keyWrapProvider.AddJsonWebKey(KekName, Encoding.UTF8.GetBytes(jwk));
        _keyProvider = new CosmosDataEncryptionKeyProvider(_keyWrapProvider);
        await _keyProvider.InitializeAsync(Database, DekContainer);
        var metadata = LocalKeyWrapProvider.CreateMetadata(KekName, KeyWrapAlgorithm.AesKeyWrap);
        foreach (string dek in new[] { Dek1, Dek2, Dek3 })
        {
            await _keyProvider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(dek, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, metadata);
        }

        Encryptor = new CosmosEncryptor(_keyProvider);
    }

    /// <summary>A new container (partition key <c>/pk</c>).</summary>
    public Task<Container> CreateContainerAsync(CancellationToken cancellationToken) =>
        _database.CreateContainerAsync(cancellationToken: cancellationToken);

    /// <summary><c>--endpoint … --database … --container …</c> for <paramref name="container"/>.</summary>
    public string[] ContainerArguments(Container container) =>
        ["--endpoint", Endpoint.Uri.ToString(), "--database", Database.Id, "--container", container.Id];

    /// <summary><c>migrate</c>'s container, lease container and keys (add the target and the run's options).</summary>
    public string[] MigrateArguments(Container container, string leaseContainer) =>
        ["migrate", .. ContainerArguments(container), "--lease-container", leaseContainer, "--dek-container", DekContainer, "--kek-file", KekFile];

    public async ValueTask DisposeAsync()
    {
        _keyProvider?.Dispose();
        _keyWrapProvider?.Dispose();
        await _database.DisposeAsync();
        Directory.Delete(_folder, recursive: true);
    }

    private static string Base64Url(byte[] bytes) => Convert.ToBase64String(bytes).TrimEnd('=').Replace('+', '-').Replace('/', '_');
}
