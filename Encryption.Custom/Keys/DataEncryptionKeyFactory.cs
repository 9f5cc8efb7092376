namespace Encryption.Custom.Keys;

/// <summary>
/// The one place where the key layer turns raw key bytes into a <see cref="DataEncryptionKey"/>. Production uses
/// <see cref="Default"/> (protected memory); unit tests substitute a factory when a real key is not the point.
/// </summary>
internal abstract class DataEncryptionKeyFactory
{
    /// <summary>Creates protected keys through <see cref="DataEncryptionKey.Create(Span{byte}, string)"/>.</summary>
    public static DataEncryptionKeyFactory Default { get; } = new ProtectedKeyFactory();

    /// <summary>Creates a key from <paramref name="rawKey"/> and zeroes <paramref name="rawKey"/>, whatever happens.</summary>
    public abstract DataEncryptionKey Create(Span<byte> rawKey, string encryptionAlgorithm);

    private sealed class ProtectedKeyFactory : DataEncryptionKeyFactory
    {
        public override DataEncryptionKey Create(Span<byte> rawKey, string encryptionAlgorithm)
        {
            try
            {
                return DataEncryptionKey.Create(rawKey, encryptionAlgorithm);
            }
            finally
            {
                // Create zeroes on success; this also covers the paths where it throws first.
                System.Security.Cryptography.CryptographicOperations.ZeroMemory(rawKey);
            }
        }
    }
}
