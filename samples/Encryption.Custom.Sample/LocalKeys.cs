using System.Security.Cryptography;
using Encryption.Custom;
using Microsoft.Azure.Cosmos;

namespace EncryptionSample;

/// <summary>
/// The key setup several examples share: a random AES key-encryption key held locally (a stand-in for Key Vault),
/// a DEK container "keys" in the database, and the named DEKs created under that KEK. Disposing zeroes the KEK.
/// </summary>
internal sealed class LocalKeys : IDisposable
{
    private readonly byte[] _kek = RandomNumberGenerator.GetBytes(32);
    private readonly LocalKeyWrapProvider _wrapProvider = new();
    private readonly CosmosDataEncryptionKeyProvider _provider;

    private LocalKeys()
    {
        _wrapProvider.AddAesKey("kek", _kek);
        _provider = new CosmosDataEncryptionKeyProvider(_wrapProvider);
        Encryptor = new CosmosEncryptor(_provider);
    }

    /// <summary>Encrypts with the DEKs created here.</summary>
    public Encryptor Encryptor { get; }

    /// <summary>Initializes the DEK container of <paramref name="database"/> and creates <paramref name="dekIds"/> under the KEK.</summary>
    public static async Task<LocalKeys> CreateAsync(Database database, params string[] dekIds)
    {
        var keys = new LocalKeys();
        await keys._provider.InitializeAsync(database, "keys");
        foreach (string dekId in dekIds)
        {
            await keys._provider.DataEncryptionKeyContainer.CreateDataEncryptionKeyAsync(
                dekId, CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized, LocalKeyWrapProvider.CreateMetadata("kek", KeyWrapAlgorithm.AesKeyWrap));
        }

        return keys;
    }

    public void Dispose()
    {
        _provider.Dispose();
        _wrapProvider.Dispose();
        CryptographicOperations.ZeroMemory(_kek);
    }
}
