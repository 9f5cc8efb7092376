using System.Diagnostics;
using System.Security.Cryptography;

namespace Encryption.Custom.Keys;

/// <summary>
/// The library's data encryption key: root and derived keys in protected memory (<see cref="ProtectedKeyMaterial"/>),
/// one AEAD instance whose keyed native contexts are built from that memory on demand.
/// </summary>
/// <remarks>
/// Lifetime is the key material's: the owner's <see cref="DataEncryptionKey.Dispose()"/> plus any pins. When the last
/// of them lets go, the memory is wiped and the AEAD's keyed contexts are freed in the same moment.
/// </remarks>
[DebuggerDisplay("{ToString(),nq}")]
internal sealed class ProtectedDataEncryptionKey : DataEncryptionKey
{
    private readonly ProtectedKeyMaterial _material;
    private readonly AeadAes256CbcHmacSha256 _aead;

    private ProtectedDataEncryptionKey(ProtectedKeyMaterial material, string encryptionAlgorithm)
    {
        _material = material;
        _aead = new AeadAes256CbcHmacSha256(material);
        EncryptionAlgorithm = encryptionAlgorithm;
        material.Released = _aead.Dispose;
    }

    public override string EncryptionAlgorithm { get; }

    /// <summary>What protects the key bytes (for diagnostics and tests).</summary>
    internal KeyMemoryProtection Protection => _material.Protection;

    /// <summary>Whether the key material has been wiped (owner disposed and no pin left).</summary>
    internal bool IsReleased => _material.IsReleased;

    /// <summary>Copies <paramref name="rawKey"/> into protected memory with its derived keys, then wipes it.</summary>
    /// <exception cref="ArgumentException">The key is not 32 bytes or the algorithm is unknown.</exception>
    public static ProtectedDataEncryptionKey CreateProtected(Span<byte> rawKey, string encryptionAlgorithm)
    {
        Span<byte> subKeys = stackalloc byte[ProtectedKeyMaterial.SubKeysLength];
        try
        {
            AeadKeyLabels labels = GetLabels(encryptionAlgorithm);
            if (rawKey.Length != ProtectedKeyMaterial.KeyLength)
            {
                throw new ArgumentException($"A data encryption key is {ProtectedKeyMaterial.KeyLength} bytes long.", nameof(rawKey));
            }

            AeadKeyDerivation.DeriveSubKeys(rawKey, labels, subKeys);

            // Create wipes both spans, also when it throws.
            return new ProtectedDataEncryptionKey(ProtectedKeyMaterial.Create(rawKey, subKeys), encryptionAlgorithm);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(rawKey);
            CryptographicOperations.ZeroMemory(subKeys);
        }
    }

    public override int GetEncryptByteCount(int plainTextLength) => AeadAes256CbcHmacSha256.GetCipherTextLength(plainTextLength);

    public override int GetDecryptByteCount(int cipherTextLength) => AeadAes256CbcHmacSha256.GetMaxPlainTextLength(cipherTextLength);

    public override int EncryptData(ReadOnlySpan<byte> plainText, Span<byte> destination)
    {
        ThrowIfReleased();
        return _aead.Encrypt(plainText, destination);
    }

    public override int DecryptData(ReadOnlySpan<byte> cipherText, Span<byte> destination)
    {
        ThrowIfReleased();
        return _aead.Decrypt(cipherText, destination);
    }

    internal override bool TryDecryptData(ReadOnlySpan<byte> cipherText, Span<byte> destination, out int bytesWritten)
    {
        ThrowIfReleased();
        return _aead.TryDecrypt(cipherText, destination, out bytesWritten);
    }

    internal override DataEncryptionKeyPin Pin() => new(_material.Pin());

    internal override int EncryptDeterministicData(ReadOnlySpan<byte> ivContext, ReadOnlySpan<byte> plainText, Span<byte> destination)
    {
        ThrowIfReleased();
        return _aead.EncryptDeterministic(ivContext, plainText, destination);
    }

    public override string ToString() => $"DataEncryptionKey({EncryptionAlgorithm}, {_material.Protection})";

    protected override void Dispose(bool disposing)
    {
        // The finalizer path is the key material's own; the AEAD's contexts finalize themselves.
        if (disposing)
        {
            _material.Dispose();
        }

        base.Dispose(disposing);
    }

    private static AeadKeyLabels GetLabels(string encryptionAlgorithm) => encryptionAlgorithm switch
    {
        CosmosEncryptionAlgorithm.MdeAeadAes256CbcHmac256Randomized => AeadKeyLabels.Current,
        CosmosEncryptionAlgorithm.AEAes256CbcHmacSha256Randomized => AeadKeyLabels.Legacy,
        _ => throw new ArgumentException($"Unknown encryption algorithm '{encryptionAlgorithm}'.", nameof(encryptionAlgorithm)),
    };

    private void ThrowIfReleased()
    {
        ObjectDisposedException.ThrowIf(_material.IsReleased, this);
    }
}
