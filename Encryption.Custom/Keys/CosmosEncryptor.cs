using Encryption.Custom.Keys;

namespace Encryption.Custom;

/// <summary>
/// The standard <see cref="Encryptor"/>: gets data encryption keys from a <see cref="DataEncryptionKeyProvider"/>
/// (usually a <see cref="CosmosDataEncryptionKeyProvider"/>, which caches them).
/// </summary>
public class CosmosEncryptor : Encryptor
{
    /// <summary>Creates an encryptor over <paramref name="dataEncryptionKeyProvider"/>.</summary>
    /// <param name="dataEncryptionKeyProvider">Where keys come from.</param>
    /// <exception cref="ArgumentNullException"><paramref name="dataEncryptionKeyProvider"/> is null.</exception>
    public CosmosEncryptor(DataEncryptionKeyProvider dataEncryptionKeyProvider)
    {
        ArgumentNullException.ThrowIfNull(dataEncryptionKeyProvider);
        DataEncryptionKeyProvider = dataEncryptionKeyProvider;
    }

    /// <summary>For mocking.</summary>
    protected CosmosEncryptor()
    {
        DataEncryptionKeyProvider = null!;
    }

    /// <summary>Where keys come from.</summary>
    public virtual DataEncryptionKeyProvider DataEncryptionKeyProvider { get; }

    /// <inheritdoc/>
    /// <exception cref="ArgumentException"><paramref name="dataEncryptionKeyId"/> or <paramref name="encryptionAlgorithm"/> is null or empty.</exception>
    public override ValueTask<DataEncryptionKey> GetEncryptionKeyAsync(
        string dataEncryptionKeyId,
        string encryptionAlgorithm,
        CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(dataEncryptionKeyId);
        ArgumentException.ThrowIfNullOrEmpty(encryptionAlgorithm);
        return DataEncryptionKeyProvider.FetchDataEncryptionKeyAsync(dataEncryptionKeyId, encryptionAlgorithm, cancellationToken);
    }

    /// <summary>Leases through the provider (inside its cache), not through <see cref="GetEncryptionKeyAsync"/>.</summary>
    internal override ValueTask<DataEncryptionKeyLease> LeaseEncryptionKeyAsync(string dataEncryptionKeyId, string encryptionAlgorithm, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(dataEncryptionKeyId);
        ArgumentException.ThrowIfNullOrEmpty(encryptionAlgorithm);
        return DataEncryptionKeyProvider.LeaseDataEncryptionKeyAsync(dataEncryptionKeyId, encryptionAlgorithm, cancellationToken);
    }
}
